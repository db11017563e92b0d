package io.rdma.sample.faults;

import io.rdma.sample.faults.KvOperation.Op;
import io.rdma.sample.faults.KvOperation.Outcome;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One key's history as operations on a register, checked for linearizability. A PUT that
 * answered 204 writes its value; a DELETE that answered 204 deletes a stored value; a GET that
 * answered 200 or 404, or a DELETE that answered 404, reads the value or absent; a reset writes
 * absent within its interval. A failed PUT or DELETE may have taken effect at any instant after
 * it was sent, or never: one whose value was read took effect before the first such read
 * returned; a failed PUT whose value nobody read, and a failed DELETE, are writes without an upper
 * bound (only a DELETE that answered 204 can tell the first happened). A failed GET says nothing. Values are unique, so a read of a value no PUT of the key wrote is wrong in any order.
 */
final class KvRegisterHistory {

    private KvRegisterHistory() {
    }

    /**
     * Why the history of {@code key} is not linearizable, or empty when it is; times in the
     * explanation count from {@code origin}. An {@link IllegalArgumentException} says when two
     * PUTs wrote the same value: the check tells writes apart by their values.
     */
    static Optional<String> violation(String key, List<KvOperation> operations, List<KvReset> resets, long origin) {
        Map<String, KvOperation> puts = new HashMap<>();
        Map<String, Long> firstReadReturns = new HashMap<>();
        for (KvOperation operation : operations) {
            if (operation.op() == Op.PUT) {
                KvOperation other = puts.putIfAbsent(operation.value(), operation);
                if (other != null) {
                    throw new IllegalArgumentException(key + ": value " + operation.value() + " written twice, by "
                            + describe(other, origin) + " and " + describe(operation, origin)
                            + "; the check tells writes apart by their values, so each PUT must write its own");
                }
            }
            else if (operation.op() == Op.GET && operation.outcome() == Outcome.OK) {
                firstReadReturns.merge(operation.value(), operation.complete(), Math::min);
            }
        }
        Optional<KvOperation> readOfNothing = operations.stream()
                .filter(operation -> operation.op() == Op.GET && operation.outcome() == Outcome.OK
                        && !puts.containsKey(operation.value()))
                .min(Comparator.comparingLong(KvOperation::invoke));
        if (readOfNothing.isPresent()) {
            return Optional.of(describe(readOfNothing.get(), origin) + ": read of a value never written to " + key);
        }
        List<RegisterOp> bounded = new ArrayList<>();
        List<RegisterOp> unboundedDeletes = new ArrayList<>();
        List<RegisterOp> unreadWrites = new ArrayList<>();
        for (KvOperation operation : operations) {
            String text = describe(operation, origin);
            switch (operation.op()) {
                case PUT -> {
                    Long firstRead = firstReadReturns.get(operation.value());
                    if (operation.outcome() == Outcome.OK) {
                        bounded.add(new RegisterOp(RegisterOp.Kind.WRITE, operation.value(), operation.invoke(),
                                operation.complete(), text));
                    }
                    else if (firstRead != null) {
                        bounded.add(new RegisterOp(RegisterOp.Kind.WRITE, operation.value(), operation.invoke(), firstRead,
                                text));
                    }
                    else {
                        unreadWrites.add(new RegisterOp(RegisterOp.Kind.WRITE, operation.value(), operation.invoke(),
                                Long.MAX_VALUE, text));
                    }
                }
                case GET -> {
                    if (operation.outcome() != Outcome.FAILED) {
                        bounded.add(new RegisterOp(RegisterOp.Kind.READ, operation.value(), operation.invoke(),
                                operation.complete(), text));
                    }
                }
                case DELETE -> {
                    switch (operation.outcome()) {
                        case OK -> bounded.add(new RegisterOp(RegisterOp.Kind.DELETE, null, operation.invoke(),
                                operation.complete(), text));
                        case ABSENT -> bounded.add(new RegisterOp(RegisterOp.Kind.READ, null, operation.invoke(),
                                operation.complete(), text));
                        case FAILED -> unboundedDeletes.add(new RegisterOp(RegisterOp.Kind.WRITE, null, operation.invoke(),
                                Long.MAX_VALUE, text));
                    }
                }
                case ECHO -> throw new IllegalArgumentException("an echo has no key, so no place in the history of " + key);
            }
        }
        for (KvReset reset : resets) {
            bounded.add(new RegisterOp(RegisterOp.Kind.WRITE, null, reset.from(), reset.to(),
                    interval(reset.from(), reset.to(), origin) + " reset: the instance that stored " + key + " was killed"));
        }
        return RegisterLinearizability.violation(bounded, unboundedDeletes, unreadWrites).map(reason -> key + ": " + reason);
    }

    /** E.g. {@code +1.200000..+1.203456 s client 3 get k7 -> c3-17}, times from {@code origin}. */
    static String describe(KvOperation operation, long origin) {
        String request = Stream.of(KvOperation.jsonName(operation.op()), operation.key(),
                        operation.op() == Op.PUT || operation.op() == Op.ECHO ? operation.value() : null)
                .filter(Objects::nonNull).collect(Collectors.joining(" "));
        String result = switch (operation.outcome()) {
            case OK -> operation.op() == Op.GET ? operation.value() : "ok";
            case ABSENT -> "absent";
            case FAILED -> "failed, " + (operation.status() == 0 ? "no answer" : "status " + operation.status())
                    + (operation.completionStatus() == null ? "" : " " + operation.completionStatus())
                    + (operation.error() == null ? "" : ": " + operation.error());
        };
        return interval(operation.invoke(), operation.complete(), origin) + " client " + operation.client() + " "
                + request + " -> " + result;
    }

    private static String interval(long from, long to, long origin) {
        return String.format(Locale.ROOT, "+%.6f..+%.6f s", (from - origin) / 1e6, (to - origin) / 1e6);
    }
}
