package io.rdma.boot.autoconfigure;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/getting-started.md shows the application kept in docs/getting-started/, file by file, and the
 * two cannot drift: a fenced block whose caption (the last line before it that is not blank) is a
 * path in backticks and a colon, {@code `pom.xml`:}, is that file of the application, whole, and
 * every file of the application is shown so. The only files not shown are the Maven wrapper's
 * scripts, which the guide has {@code mvn wrapper:wrapper} write, and what builds and IDEs write.
 * .ci/getting-started-app.sh builds that application as the guide says, tests it and runs it.
 */
class GettingStartedGuideTests {

    /** Tests run in the module's directory. */
    private static final Path GUIDE = Path.of("..", "docs", "getting-started.md");
    private static final Path APPLICATION = Path.of("..", "docs", "getting-started");
    private static final Pattern FENCE = Pattern.compile("```.*");
    private static final Pattern FILE_CAPTION = Pattern.compile("`([^`\\s]+)`:");
    /** The Maven wrapper's scripts: the guide shows the command that writes them. */
    private static final Set<String> WRITTEN_BY_A_COMMAND = Set.of("mvnw", "mvnw.cmd");
    /** Top-level directories of the application that Maven, Gradle and IDEs write (.gitignore lists them). */
    private static final Set<String> BUILD_AND_IDE_OUTPUT = Set.of("target", "build", ".gradle", ".idea", ".vscode");

    @TestFactory
    Stream<DynamicTest> everyFileTheGuideShowsIsThatFileOfTheApplication() throws IOException {
        List<ShownFile> shown = shownFiles();
        assertThat(shown).as("blocks of %s captioned with a file's path", GUIDE).isNotEmpty();
        return shown.stream().map(file -> DynamicTest.dynamicTest(file.toString(), () -> {
            Path path = APPLICATION.resolve(file.path());
            assertThat(path).as("%s shows a file the application does not have", file).isRegularFile();
            assertThat(Files.readString(path)).as("%s: %s", file, firstDifference(file.text(), Files.readString(path)))
                    .isEqualTo(file.text());
        }));
    }

    @Test
    void everyFileOfTheApplicationIsShownInTheGuide() throws IOException {
        Set<String> shown = shownFiles().stream().map(ShownFile::path).collect(Collectors.toSet());
        List<String> application;
        try (Stream<Path> files = Files.walk(APPLICATION)) {
            application = files.filter(Files::isRegularFile).map(APPLICATION::relativize)
                    .filter(path -> !BUILD_AND_IDE_OUTPUT.contains(path.getName(0).toString()))
                    .map(path -> path.toString().replace(File.separatorChar, '/'))
                    .filter(path -> !WRITTEN_BY_A_COMMAND.contains(path)).sorted().toList();
        }
        assertThat(application).as("files of %s", APPLICATION).contains("pom.xml");
        assertThat(application.stream().filter(path -> !shown.contains(path)))
                .as("files of %s that %s does not show", APPLICATION, GUIDE).isEmpty();
    }

    /** The fenced blocks captioned with a file's path, in the guide's order. */
    private static List<ShownFile> shownFiles() throws IOException {
        List<String> lines = Files.readAllLines(GUIDE);
        List<ShownFile> shown = new ArrayList<>();
        String caption = "";
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!FENCE.matcher(line).matches()) {
                caption = line.isBlank() ? caption : line;
                continue;
            }
            int fence = i;
            StringBuilder text = new StringBuilder();
            for (i++; i < lines.size() && !lines.get(i).equals("```"); i++) {
                text.append(lines.get(i)).append('\n');
            }
            Matcher path = FILE_CAPTION.matcher(caption);
            if (path.matches()) {
                shown.add(new ShownFile(path.group(1), fence + 1, text.toString()));
            }
            caption = "";
        }
        return shown;
    }

    /** Where the guide's text and the file's first differ, so that a failure says which line to fix. */
    private static String firstDifference(String guide, String file) {
        List<String> guideLines = guide.lines().toList();
        List<String> fileLines = file.lines().toList();
        for (int line = 0; line < Math.max(guideLines.size(), fileLines.size()); line++) {
            String inGuide = line < guideLines.size() ? guideLines.get(line) : "(nothing)";
            String inFile = line < fileLines.size() ? fileLines.get(line) : "(nothing)";
            if (!inGuide.equals(inFile)) {
                return "line " + (line + 1) + " of the block is <" + inGuide + ">, of the file <" + inFile + ">";
            }
        }
        return "the two differ in line endings";
    }

    /** A block of the guide that shows a file: the file's path in the application, the fence's line, its text. */
    record ShownFile(String path, int line, String text) {

        @Override
        public String toString() {
            return "getting-started.md:" + line + " (" + path + ")";
        }
    }
}
