package io.rdma.sample.faults;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The arguments of {@link KvHistoryRecorder}, each {@code --name=value} or a flag {@code --name}:
 * <ul>
 * <li>{@code --base-url} (http://127.0.0.1:8080): the sample instance's HTTP address.</li>
 * <li>{@code --keys} (16) and {@code --key-prefix} (k): the keys are k0 .. k15 (the prefix must be
 * safe in a URL path).</li>
 * <li>{@code --clients} (8): the processes, each one request at a time.</li>
 * <li>{@code --history}: the file the operations are written to, one JSON line each (required).</li>
 * <li>{@code --stop-file}: the clients stop once this file exists (required).</li>
 * <li>{@code --request-timeout} (30s): a request with no answer by then is recorded failed.</li>
 * <li>{@code --pause} (5ms): each client's pause between rounds.</li>
 * <li>{@code --echo}: each round also sends a {@code GET /echo}.</li>
 * <li>{@code --preload}: first PUT every key once, until it answers 204.</li>
 * </ul>
 * Durations are a number with {@code ms}, {@code s} or {@code m}.
 */
record KvRecorderOptions(URI baseUrl, int keys, String keyPrefix, int clients, Path history, Path stopFile,
                         Duration requestTimeout, Duration pause, boolean echo, boolean preload) {

    private static final Pattern OPTION = Pattern.compile("--([a-z-]+)(?:=(.*))?");
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m)");

    static KvRecorderOptions parse(String... args) {
        Map<String, String> values = new HashMap<>();
        for (String arg : args) {
            Matcher option = OPTION.matcher(arg);
            if (!option.matches()) {
                throw new IllegalArgumentException("unknown argument " + arg + ": each is --name=value or --flag");
            }
            values.put(option.group(1), option.group(2) == null ? "" : option.group(2));
        }
        KvRecorderOptions options = new KvRecorderOptions(
                URI.create(take(values, "base-url", "http://127.0.0.1:8080").replaceAll("/+$", "")),
                count(take(values, "keys", "16"), "keys"), take(values, "key-prefix", "k"),
                count(take(values, "clients", "8"), "clients"), Path.of(take(values, "history", null)),
                Path.of(take(values, "stop-file", null)), duration(take(values, "request-timeout", "30s"), "request-timeout"),
                duration(take(values, "pause", "5ms"), "pause"), values.remove("echo") != null,
                values.remove("preload") != null);
        if (!values.isEmpty()) {
            throw new IllegalArgumentException("unknown options " + values.keySet()
                    + "; known: base-url keys key-prefix clients history stop-file request-timeout pause echo preload");
        }
        return options;
    }

    /** Removes option {@code name}; without one, {@code fallback} (null: the option is required). */
    private static String take(Map<String, String> values, String name, @Nullable String fallback) {
        String value = values.remove(name);
        if (value == null && fallback == null) {
            throw new IllegalArgumentException("--" + name + "=... is required");
        }
        return value != null ? value : fallback;
    }

    private static int count(String value, String name) {
        try {
            int count = Integer.parseInt(value);
            if (count > 0) {
                return count;
            }
        }
        catch (NumberFormatException e) {
            // refused below like a count that is not positive
        }
        throw new IllegalArgumentException("--" + name + " must be a positive integer, not " + value);
    }

    private static Duration duration(String value, String name) {
        Matcher duration = DURATION.matcher(value);
        if (!duration.matches()) {
            throw new IllegalArgumentException("--" + name + " must be a duration like 5ms, 30s or 2m, not " + value);
        }
        long amount = Long.parseLong(duration.group(1));
        return switch (duration.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            default -> Duration.ofMinutes(amount);
        };
    }
}
