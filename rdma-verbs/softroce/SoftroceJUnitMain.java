import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Guest-side JUnit entry point used by run-junit-in-guest.sh (compiled on the
 * host into $SOFTROCE_CACHE, not part of any Maven module).
 *
 * Runs the JUnit Platform console launcher (through its ToolProvider "junit",
 * so only public API is used) with the given arguments, then - while this JVM
 * is still alive, i.e. before the kernel would clean up leaked verbs objects
 * on process exit - asks `rdma resource show` which qp/cq/pd/mr/cm_id entries
 * still belong to this process (srq and ctx, i.e. an unclosed device, too).  Leaks are retried a few times after
 * System.gc() (objects freed by a Cleaner) before they count.
 *
 * <p>librdmacm opens one device context per RDMA device the first time an rdma_cm id meets
 * that device and keeps it for the life of the process (there is no call that closes it).
 * So that the check can tell that context from a leaked one, this runner opens librdmacm's
 * contexts itself before the tests ({@code rdma_get_devices}, which opens all of them) and
 * exempts exactly those, by their {@code ctxn}; any other context left open is a leak.
 *
 * Exit status: the launcher's status if non-zero (1 = test failures, 2 = no
 * tests with --fail-if-no-tests), else 3 if verbs resources of this process
 * remain, else 0.
 */
public final class SoftroceJUnitMain {
    private static final String[] TYPES = {"qp", "cq", "pd", "mr", "srq", "cm_id", "ctx"};

    public static void main(String[] args) throws Throwable {
        ToolProvider junit = ToolProvider.findFirst("junit")
                .orElseThrow(() -> new IllegalStateException("JUnit console launcher (ToolProvider 'junit') not on the class path"));
        boolean check = !"false".equals(System.getProperty("softroce.leakCheck"));
        long pid = ProcessHandle.current().pid();
        Set<String> rdmacmContexts = check ? openRdmaCmContexts(pid) : Set.of();
        int rc = junit.run(System.out, System.err, args);
        System.out.flush();
        System.err.flush();
        int leaked = 0;
        if (check) {
            Map<String, Integer> mine = Map.of();
            for (int attempt = 0; attempt < 5; attempt++) {
                mine = countOwned(pid, rdmacmContexts);
                leaked = mine.values().stream().mapToInt(Integer::intValue).sum();
                if (leaked == 0) break;
                System.gc();
                Thread.sleep(1000);
            }
            StringBuilder sb = new StringBuilder("softroce-junit: rdma resources still held by the test JVM (pid " + pid + ") after the tests:");
            for (String t : TYPES) sb.append(' ').append(t).append('=').append(mine.getOrDefault(t, 0));
            System.out.println(sb);
            if (leaked > 0) {
                System.out.println("softroce-junit: LEAK: verbs objects not released by the tests:");
                for (String t : TYPES) {
                    for (String line : rdma(t)) {
                        if (leaked(t, line, pid, rdmacmContexts)) System.out.println("softroce-junit:   " + t + ": " + line.trim());
                    }
                }
            }
        }
        System.out.flush();
        System.exit(rc != 0 ? rc : (leaked > 0 ? 3 : 0));
    }

    private static final Pattern PID = Pattern.compile("\\bpid (\\d+)\\b");
    private static final Pattern CTXN = Pattern.compile("\\bdev (\\S+) ctxn (\\d+)\\b");

    /**
     * Makes librdmacm open its device contexts now ({@code rdma_get_devices}; the array is freed,
     * the contexts stay with librdmacm) and returns them as "DEVICE ctxn N" keys. Empty when
     * librdmacm cannot be loaded: then no context is exempt.
     */
    private static Set<String> openRdmaCmContexts(long pid) throws Throwable {
        SymbolLookup rdmacm;
        try {
            rdmacm = SymbolLookup.libraryLookup("librdmacm.so.1", Arena.global());
        } catch (IllegalArgumentException e) {
            System.out.println("softroce-junit: librdmacm.so.1 not loadable (" + e.getMessage() + "): no context is exempt");
            return Set.of();
        }
        Linker linker = Linker.nativeLinker();
        MethodHandle getDevices = linker.downcallHandle(rdmacm.find("rdma_get_devices").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        MethodHandle freeDevices = linker.downcallHandle(rdmacm.find("rdma_free_devices").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment devices = (MemorySegment) getDevices.invokeExact(count);
            if (!devices.equals(MemorySegment.NULL)) {
                freeDevices.invokeExact(devices);
            }
        }
        Set<String> contexts = new TreeSet<>();
        for (String line : rdma("ctx")) {
            Matcher m = CTXN.matcher(line);
            if (ownedBy(line, pid) && m.find()) contexts.add(m.group(1) + " ctxn " + m.group(2));
        }
        System.out.println("softroce-junit: librdmacm's own device contexts, open for the life of the JVM and exempt from the leak check: "
                + (contexts.isEmpty() ? "none" : String.join(", ", contexts)));
        return contexts;
    }

    /** An entry of TYPE that this process created and that is not one of librdmacm's own contexts. */
    private static boolean leaked(String type, String line, long pid, Set<String> rdmacmContexts) {
        if (!ownedBy(line, pid)) return false;
        if (!type.equals("ctx")) return true;
        Matcher m = CTXN.matcher(line);
        return !(m.find() && rdmacmContexts.contains(m.group(1) + " ctxn " + m.group(2)));
    }

    /**
     * The kernel records the creating TASK (thread id), not the process id:
     * an entry is ours if that task is one of our threads, or if the task no
     * longer exists (a finished test thread; the guest runs nothing else that
     * uses verbs).  Kernel-owned entries ("comm [ib_core]") have no pid.
     */
    private static boolean ownedBy(String line, long pid) {
        Matcher m = PID.matcher(line);
        if (!m.find()) return false;
        String tid = m.group(1);
        if (Long.parseLong(tid) == pid || Files.exists(Path.of("/proc/self/task", tid))) return true;
        try {
            for (String l : Files.readAllLines(Path.of("/proc", tid, "status"))) {
                if (l.startsWith("Tgid:")) return Long.parseLong(l.substring(5).trim()) == pid;
            }
            return false;
        } catch (java.io.IOException gone) {
            return true;
        }
    }

    private static Map<String, Integer> countOwned(long pid, Set<String> rdmacmContexts) throws Exception {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String t : TYPES) {
            int n = 0;
            for (String line : rdma(t)) if (leaked(t, line, pid, rdmacmContexts)) n++;
            counts.put(t, n);
        }
        return counts;
    }

    private static java.util.List<String> rdma(String type) throws Exception {
        Process p = new ProcessBuilder("rdma", "resource", "show", type).redirectErrorStream(true).start();
        java.util.List<String> lines = new java.util.ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null; ) {
                lines.add(l);
                if (Boolean.getBoolean("softroce.leakCheck.debug")) System.out.println("softroce-junit: [rdma resource show " + type + "] " + l);
            }
        }
        p.waitFor();
        return lines;
    }
}
