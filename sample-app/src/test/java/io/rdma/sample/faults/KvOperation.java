package io.rdma.sample.faults;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One operation of a key-value history: the line format {@link KvHistoryRecorder} writes and
 * {@link KvLinearizabilityChecker} reads, one JSON object a line, its fields in this order:
 * <pre>
 * {"client":3,"op":"put","key":"k7","value":"c3-17","invoke":1767225600000000,"complete":1767225600001234,
 *  "status":204,"outcome":"ok","error":null,"completionStatus":null}
 * </pre>
 * {@code client}: the process (one operation at a time; 0 is the preload). {@code op}: put, get,
 * delete or echo. {@code key}: null for echo. {@code value}: put: the value written (unique in the
 * run); get: the value read, null when absent or failed; echo: the message sent; delete: null.
 * {@code invoke}, {@code complete}: epoch microseconds when the request was sent and its answer
 * (or failure) came. {@code status}: the HTTP status, 0 when no answer came. {@code outcome}: ok,
 * absent (get and delete: 404, the key was not stored) or failed (any other answer, or none).
 * {@code error}: the ProblemDetail's {@code detail} or the exception, null when not failed.
 * {@code completionStatus}: the ProblemDetail's property of that name, else null.
 */
record KvOperation(int client, Op op, @Nullable String key, @Nullable String value, long invoke, long complete,
                   int status, Outcome outcome, @Nullable String error, @Nullable String completionStatus) {

    private static final JsonMapper json = JsonMapper.builder().build();

    /** The requests, each with the status of its success and of "not stored" (-1: none). */
    enum Op {
        PUT(204, -1), GET(200, 404), DELETE(204, 404), ECHO(200, -1);

        private final int ok;
        private final int absent;

        Op(int ok, int absent) {
            this.ok = ok;
            this.absent = absent;
        }

        /** What the HTTP status of an answer to this request says (KvController's mapping). */
        Outcome outcomeOf(int status) {
            return status == ok ? Outcome.OK : status == absent ? Outcome.ABSENT : Outcome.FAILED;
        }
    }

    enum Outcome {
        OK, ABSENT, FAILED
    }

    KvOperation {
        if (op != Op.ECHO && key == null) {
            throw new IllegalArgumentException("a " + jsonName(op) + " needs a key");
        }
        if (op == Op.PUT && value == null) {
            throw new IllegalArgumentException("a put needs the value it wrote");
        }
        if (outcome == Outcome.ABSENT && (op == Op.PUT || op == Op.ECHO)) {
            throw new IllegalArgumentException("a " + jsonName(op) + " is ok or failed, never absent");
        }
        if (op == Op.GET && (outcome == Outcome.OK) != (value != null)) {
            throw new IllegalArgumentException("a get has a value exactly when its outcome is ok, not " + jsonName(outcome));
        }
        if (complete < invoke) {
            throw new IllegalArgumentException("complete " + complete + " is before invoke " + invoke);
        }
    }

    /** Microseconds since the epoch, the unit of {@link #invoke} and {@link #complete}. */
    static long epochMicros(Instant instant) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
    }

    String toJson() {
        ObjectNode node = json.createObjectNode();
        node.put("client", client);
        node.put("op", jsonName(op));
        node.put("key", key);
        node.put("value", value);
        node.put("invoke", invoke);
        node.put("complete", complete);
        node.put("status", status);
        node.put("outcome", jsonName(outcome));
        node.put("error", error);
        node.put("completionStatus", completionStatus);
        return json.writeValueAsString(node);
    }

    /** The operation of one history line; an {@link IllegalArgumentException} names what is wrong with it. */
    static KvOperation parse(String line) {
        JsonNode node;
        try {
            node = json.readTree(line);
        }
        catch (JacksonException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        return new KvOperation(Math.toIntExact(number(node, "client")), named(Op.values(), string(node, "op"), "op"),
                optionalString(node, "key"), optionalString(node, "value"), number(node, "invoke"),
                number(node, "complete"), Math.toIntExact(number(node, "status")),
                named(Outcome.values(), string(node, "outcome"), "outcome"), optionalString(node, "error"),
                optionalString(node, "completionStatus"));
    }

    private static long number(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException("\"" + field + "\" must be an integer");
        }
        return value.longValue();
    }

    private static String string(JsonNode node, String field) {
        String value = optionalString(node, field);
        if (value == null) {
            throw new IllegalArgumentException("\"" + field + "\" must be a string");
        }
        return value;
    }

    private static @Nullable String optionalString(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw new IllegalArgumentException("\"" + field + "\" must be a string or null");
        }
        return value.stringValue();
    }

    /** The name of an {@link Op} or {@link Outcome} in a line: its Java name in lower case. */
    static String jsonName(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT);
    }

    private static <E extends Enum<E>> E named(E[] constants, String name, String field) {
        for (E constant : constants) {
            if (jsonName(constant).equals(name)) {
                return constant;
            }
        }
        throw new IllegalArgumentException("\"" + field + "\" is " + name + ", not one of the known names");
    }
}
