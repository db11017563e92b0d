package io.rdma.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Debian's {@code prometheus} package's programs, for the tests that run them; without them those tests skip. */
final class PrometheusTools {

    private PrometheusTools() {
    }

    /** {@code tool} ({@code prometheus}, {@code promtool}) from {@code -D<tool>=<path>}, else from the PATH. */
    static Path installed(String tool) {
        Optional<Path> found = Optional.ofNullable(System.getProperty(tool)).map(Path::of)
                .or(() -> Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                        .map(directory -> Path.of(directory, tool)).filter(Files::isExecutable).findFirst());
        assumeTrue(found.isPresent(), tool + " is not installed (Debian: prometheus); -D" + tool + "=<path> names it");
        return found.get();
    }
}
