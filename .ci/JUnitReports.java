import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Reads legacy JUnit XML reports ({@code TEST-*.xml}, as Surefire and the JUnit console launcher
 * write them; each REPORT a file or a directory of them) and prints how many tests ran, every skipped test with its
 * reason and every failed one. Exits 1 when fewer than {@code --min-executed N} tests were
 * executed (run and not skipped), when a test named by {@code --must-run Class#method} is
 * missing or skipped, or when a test failed; 2 on bad arguments or unreadable reports, or when a
 * REPORT is missing, unless {@code --allow-missing} (a build of some modules only: a missing
 * report directory is a module that did not run, and counts no test).
 * Written so that a renamed package or a library the run cannot see fails CI instead of
 * shrinking the run in silence.
 *
 * <pre>java .ci/JUnitReports.java REPORT... [--min-executed N] [--must-run Class#method]... [--allow-missing]</pre>
 */
public final class JUnitReports {

    private record Outcome(String name, String status, String detail) {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage();
        }
        List<Path> paths = new ArrayList<>();
        int first = 0;
        for (; first < args.length && !args[first].startsWith("--"); first++) {
            paths.add(Path.of(args[first]));
        }
        int minExecuted = 0;
        List<String> mustRun = new ArrayList<>();
        boolean allowMissing = false;
        for (int i = first; i < args.length; i += 2) {
            if (args[i].equals("--allow-missing")) {
                allowMissing = true;
                i--; // a flag without a value
                continue;
            }
            if (i + 1 >= args.length) {
                usage();
            }
            switch (args[i]) {
                case "--min-executed" -> minExecuted = Integer.parseInt(args[i + 1]);
                case "--must-run" -> mustRun.add(args[i + 1]);
                default -> usage();
            }
        }
        if (paths.isEmpty()) {
            usage();
        }
        List<Outcome> outcomes = read(paths, allowMissing);
        long skipped = outcomes.stream().filter(outcome -> outcome.status().equals("skipped")).count();
        List<Outcome> failed = outcomes.stream().filter(outcome -> outcome.status().equals("failed")).toList();
        long executed = outcomes.size() - skipped;
        System.out.printf("junit-reports: %s: %d tests, %d executed, %d skipped, %d failed%n", paths.size() == 1
                ? paths.getFirst() : paths.size() + " reports",
                outcomes.size(), executed, skipped, failed.size());
        outcomes.stream().filter(outcome -> outcome.status().equals("skipped")).forEach(outcome ->
                System.out.println("junit-reports: SKIPPED " + outcome.name() + ": " + outcome.detail()));
        failed.forEach(outcome -> System.out.println("junit-reports: FAILED " + outcome.name() + ": "
                + outcome.detail()));
        boolean ok = failed.isEmpty();
        if (executed < minExecuted) {
            System.out.printf("junit-reports: ERROR: %d tests executed, at least %d expected%n", executed, minExecuted);
            ok = false;
        }
        for (String name : mustRun) {
            // Class#method names every invocation of that method, whatever its parameters: (Path), (int)[1], ...
            List<Outcome> matching = outcomes.stream()
                    .filter(outcome -> outcome.name().equals(name) || outcome.name().startsWith(name + "(")).toList();
            if (matching.isEmpty() || matching.stream().anyMatch(outcome -> outcome.status().equals("skipped"))) {
                System.out.println("junit-reports: ERROR: " + name + (matching.isEmpty() ? " did not run"
                        : " was skipped: " + matching.getFirst().detail()));
                ok = false;
            }
        }
        System.exit(ok ? 0 : 1);
    }

    private static List<Outcome> read(List<Path> paths, boolean allowMissing) throws Exception {
        List<Path> reports = new ArrayList<>();
        for (Path path : paths) {
            if (Files.isDirectory(path)) {
                try (Stream<Path> files = Files.list(path)) {
                    files.filter(file -> file.getFileName().toString().matches("TEST-.*\\.xml")).sorted()
                            .forEach(reports::add);
                }
            } else if (Files.isRegularFile(path)) {
                reports.add(path);
            } else if (!allowMissing) {
                System.err.println("junit-reports: no report " + path);
                System.exit(2);
            }
        }
        if (reports.isEmpty() && !allowMissing) {
            System.err.println("junit-reports: no TEST-*.xml in " + paths);
            System.exit(2);
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (Path report : reports) {
            NodeList cases = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile())
                    .getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element testCase = (Element) cases.item(i);
                outcomes.add(outcome(testCase));
            }
        }
        return outcomes;
    }

    /** A test case's outcome; the reason of a skip is the message attribute (Surefire) or the text (console launcher). */
    private static Outcome outcome(Element testCase) {
        String method = testCase.getAttribute("name");
        String name = testCase.getAttribute("classname") + "#" + (method.contains("(") && method.endsWith("()")
                ? method.substring(0, method.indexOf('(')) : method);
        for (String status : List.of("skipped", "failure", "error")) {
            NodeList elements = testCase.getElementsByTagName(status);
            if (elements.getLength() > 0) {
                Element element = (Element) elements.item(0);
                String detail = element.getAttribute("message").isBlank() ? element.getTextContent().strip()
                        : element.getAttribute("message");
                return new Outcome(name, status.equals("skipped") ? "skipped" : "failed",
                        detail.lines().filter(line -> !line.isBlank()).findFirst().orElse("").strip());
            }
        }
        return new Outcome(name, "executed", "");
    }

    private static void usage() {
        System.err.println("usage: java .ci/JUnitReports.java REPORT... [--min-executed N] [--must-run Class#method]..."
                + " [--allow-missing]");
        System.exit(2);
    }
}
