package io.rdma.verbs.loopback;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a misuse scenario's {@code main} in a JVM of its own, on the provider and device this
 * run selects, so that a regression that crashes the JVM (a read of freed memory) fails the
 * test that provoked it instead of killing the whole run.
 */
final class ForkedJvm {

    private static final List<String> FORWARDED = List.of("rdma.provider", "rdma-test.device", "rdma-test.port",
            "rdma-test.gid-index", "java.library.path");

    private ForkedJvm() {
    }

    /** Runs {@code main} and returns its output; fails unless it exits with status 0. */
    static String runExpectingExitZero(Class<?> main) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        // The test JVM's own VM options: under emulation (the Soft-RoCE runs) C1 only and the
        // serial collector, which the fork needs as much as the test JVM does.
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(argument -> argument.startsWith("-XX:"))
                .forEach(command::add);
        for (String property : FORWARDED) {
            String value = System.getProperty(property);
            if (value != null) {
                command.add("-D" + property + "=" + value);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(LoopbackFabric.WAIT.toSeconds() * 6, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(process.exitValue()).as("exit status of %s; its output:%n%s", main.getName(), output).isZero();
        return output;
    }
}
