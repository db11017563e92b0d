package io.rdma.sample.faults;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Checks a history {@link KvHistoryRecorder} wrote: whether each key's operations are
 * linearizable as a register's (see {@link KvRegisterHistory} for what each operation means).
 * <pre>
 * java -cp sample-app/target/test-classes:&lt;the sample's test class path&gt; \
 *     io.rdma.sample.faults.KvLinearizabilityChecker HISTORY [--resets=FILE]
 * </pre>
 * {@code --resets}: the keys whose value was lost when the instance that stored them was killed,
 * a line {@code <key> <from-micros> <to-micros>} each (epoch microseconds; blank lines are
 * skipped). Prints, for each key that is not linearizable, why (the operation that cannot take
 * effect and those around it, times in seconds from the history's first operation), then
 * {@code keys N, operations M, linearizable K, violations V}. Exits with 0 when every key is
 * linearizable, 1 when one is not, 2 when the arguments or a file cannot be read.
 */
public final class KvLinearizabilityChecker {

    private KvLinearizabilityChecker() {
    }

    /** What the check found: the number of keys and operations, and why each key that is not linearizable is not. */
    record Verdict(int keys, int operations, SortedMap<String, String> violations) {

        String summary() {
            return "keys " + keys + ", operations " + operations + ", linearizable " + (keys - violations.size())
                    + ", violations " + violations.size();
        }
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Checks what {@code args} name and prints the verdict; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Path history = null;
        Path resets = null;
        for (String arg : args) {
            if (arg.startsWith("--resets=")) {
                resets = Path.of(arg.substring("--resets=".length()));
            }
            else if (history == null && !arg.startsWith("--")) {
                history = Path.of(arg);
            }
            else {
                err.println("unknown argument " + arg + "; usage: KvLinearizabilityChecker HISTORY [--resets=FILE]");
                return 2;
            }
        }
        if (history == null) {
            err.println("no history; usage: KvLinearizabilityChecker HISTORY [--resets=FILE]");
            return 2;
        }
        return check(history, resets, out, err);
    }

    /** Checks {@code history}, whose values were lost at the {@code resets} (none when null), and prints the verdict; returns the exit status. */
    static int check(Path history, @Nullable Path resets, PrintStream out, PrintStream err) {
        Verdict verdict;
        try {
            verdict = check(lines(history, KvOperation::parse),
                    resets == null ? List.of() : lines(resets, KvReset::parse));
        }
        catch (IOException e) {
            err.println("cannot read " + e);
            return 2;
        }
        catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        verdict.violations().values().forEach(out::println);
        out.println(verdict.summary());
        return verdict.violations().isEmpty() ? 0 : 1;
    }

    /** Checks each key of {@code history}, whose values were lost at {@code resets}. */
    static Verdict check(List<KvOperation> history, List<KvReset> resets) {
        long origin = history.stream().mapToLong(KvOperation::invoke).min().orElse(0);
        Map<String, List<KvOperation>> byKey = history.stream().filter(operation -> operation.key() != null)
                .collect(Collectors.groupingBy(KvOperation::key, TreeMap::new, Collectors.toList()));
        Map<String, List<KvReset>> resetsByKey = resets.stream().collect(Collectors.groupingBy(KvReset::key));
        SortedMap<String, String> violations = new TreeMap<>();
        byKey.forEach((key, operations) -> {
            Optional<String> violation = KvRegisterHistory.violation(key, operations,
                    resetsByKey.getOrDefault(key, List.of()), origin);
            violation.ifPresent(reason -> violations.put(key, reason));
        });
        return new Verdict(byKey.size(), history.size(), violations);
    }

    /** The non-blank lines of {@code file}, each parsed; a line that cannot be is named by file and number. */
    private static <T> List<T> lines(Path file, Function<String, T> parse) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<T> parsed = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).isBlank()) {
                try {
                    parsed.add(parse.apply(lines.get(i)));
                }
                catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
                }
            }
        }
        return parsed;
    }
}
