package io.rdma.sample.faults;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * {@link KvHistoryRecorder} and {@link KvLinearizabilityChecker} for a whole run of fault
 * scenarios, in one JVM: in the emulated two-hosts guests a JVM of its own for each scenario's
 * recording took about 35 s of the guest's one CPU to start, and each check's another 25.
 * <pre>
 * java -cp sample-app/target/test-classes:&lt;the sample's test class path&gt; io.rdma.sample.faults.KvFaultSession \
 *     DIR [KvHistoryRecorder's options but --history, --stop-file and --key-prefix]
 * </pre>
 * It waits for files that the fault script puts into {@code DIR}, each whole when it appears:
 * <ul>
 * <li>{@code NAME.start}: records scenario NAME (keys {@code NAME-0} ..., history
 * {@code NAME.history.jsonl}) until {@code NAME.stop} exists; then writes {@code NAME.recorder}
 * (the {@link KvHistorySummary} line, or why the recording failed), checks the history with the
 * resets in {@code NAME.resets} when that file exists and writes the checker's output to
 * {@code NAME.verdict}, and last {@code NAME.status}: the checker's exit status (0 linearizable,
 * 1 not, 2 unreadable), or {@value #RECORDING_FAILED} when the recording failed.</li>
 * <li>{@code end}: ends the session with status 0.</li>
 * </ul>
 * Exits with 2 on bad arguments.
 */
public final class KvFaultSession {

    /** The status of a scenario whose history could not be recorded. */
    static final int RECORDING_FAILED = 3;
    /** Between two looks for the next file: each look costs the emulated guest's one CPU. */
    private static final Duration POLL = Duration.ofMillis(200);
    private static final List<String> PER_SCENARIO = List.of("--history", "--stop-file", "--key-prefix");

    private final Path dir;
    private final List<String> recorderArgs;

    private KvFaultSession(Path dir, List<String> recorderArgs) {
        this.dir = dir;
        this.recorderArgs = recorderArgs;
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length == 0 || args[0].startsWith("--")) {
            System.err.println("usage: KvFaultSession DIR [KvHistoryRecorder's options but --history, --stop-file and --key-prefix]");
            System.exit(2);
            return;
        }
        KvFaultSession session;
        try {
            session = of(Path.of(args[0]), List.of(args).subList(1, args.length));
        }
        catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        session.run();
    }

    /** A session in {@code dir}; refuses options that are not the recorder's or that each scenario sets itself. */
    static KvFaultSession of(Path dir, List<String> recorderArgs) {
        for (String arg : recorderArgs) {
            if (PER_SCENARIO.stream().anyMatch(option -> arg.startsWith(option + "="))) {
                throw new IllegalArgumentException(arg + ": each scenario sets " + String.join(", ", PER_SCENARIO) + " itself");
            }
        }
        KvFaultSession session = new KvFaultSession(dir, List.copyOf(recorderArgs));
        session.options("scenario");
        return session;
    }

    /** Runs each scenario as its start file appears, until the end file does. */
    void run() throws IOException, InterruptedException {
        while (!Files.exists(dir.resolve("end"))) {
            Optional<String> scenario = nextScenario();
            if (scenario.isPresent()) {
                runScenario(scenario.get());
            }
            else {
                Thread.sleep(POLL);
            }
        }
    }

    private Optional<String> nextScenario() throws IOException {
        try (DirectoryStream<Path> starts = Files.newDirectoryStream(dir, "*.start")) {
            for (Path start : starts) {
                Files.delete(start);
                String file = start.getFileName().toString();
                return Optional.of(file.substring(0, file.length() - ".start".length()));
            }
        }
        return Optional.empty();
    }

    private void runScenario(String name) throws IOException, InterruptedException {
        KvRecorderOptions options = options(name);
        int status;
        try {
            writeWhole(name + ".recorder", KvHistoryRecorder.record(options).line());
            ByteArrayOutputStream verdict = new ByteArrayOutputStream();
            try (PrintStream out = new PrintStream(verdict, true, StandardCharsets.UTF_8)) {
                Path resets = dir.resolve(name + ".resets");
                status = KvLinearizabilityChecker.check(options.history(), Files.exists(resets) ? resets : null, out, out);
            }
            writeWhole(name + ".verdict", verdict.toString(StandardCharsets.UTF_8));
        }
        catch (KvHistoryRecorder.PreloadFailedException | ExecutionException e) {
            writeWhole(name + ".recorder", "recording failed: " + e.getMessage());
            status = RECORDING_FAILED;
        }
        writeWhole(name + ".status", Integer.toString(status));
    }

    private KvRecorderOptions options(String scenario) {
        List<String> args = new ArrayList<>(recorderArgs);
        args.add("--history=" + dir.resolve(scenario + ".history.jsonl"));
        args.add("--stop-file=" + dir.resolve(scenario + ".stop"));
        args.add("--key-prefix=" + scenario + "-");
        return KvRecorderOptions.parse(args.toArray(String[]::new));
    }

    /** Written beside and then moved: the script that waits for {@code file} never reads a part of it. */
    private void writeWhole(String file, String content) throws IOException {
        Path partial = dir.resolve(file + ".partial");
        Files.writeString(partial, content.endsWith("\n") ? content : content + "\n");
        Files.move(partial, dir.resolve(file), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
