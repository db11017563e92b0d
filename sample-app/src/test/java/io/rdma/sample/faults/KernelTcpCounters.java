package io.rdma.sample.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The kernel's TCP counters ({@code /proc/net/snmp}'s {@code Tcp} and {@code /proc/net/netstat}'s
 * {@code TcpExt}, what {@code nstat} shows), read before and after a load so that a run whose
 * connections ended without an answer says which of the kernel's reasons moved: resets sent
 * ({@code Tcp.OutRsts}), connections aborted on data left unread ({@code TcpExt.TCPAbortOnData}),
 * on memory ({@code TCPAbortOnMemory}), on timeouts ({@code TCPAbortOnTimeout}), listen queue
 * overflows ({@code ListenOverflows}). Empty where there is no such file (not Linux).
 */
record KernelTcpCounters(Map<String, Long> values) {

    private static final List<Path> SOURCES = List.of(Path.of("/proc/net/snmp"), Path.of("/proc/net/netstat"));

    static KernelTcpCounters read() throws IOException {
        Map<String, Long> values = new LinkedHashMap<>();
        for (Path source : SOURCES) {
            if (!Files.isReadable(source)) {
                continue;
            }
            List<String> lines = Files.readAllLines(source);
            // each section is two lines: "Name: key key ...", then "Name: value value ..."
            for (int i = 0; i + 1 < lines.size(); i += 2) {
                String[] keys = lines.get(i).split("\\s+");
                String[] numbers = lines.get(i + 1).split("\\s+");
                String section = keys[0].replace(":", "");
                if (!section.equals("Tcp") && !section.equals("TcpExt")) {
                    continue;
                }
                for (int k = 1; k < keys.length && k < numbers.length; k++) {
                    values.put(section + "." + keys[k], Long.parseLong(numbers[k]));
                }
            }
        }
        return new KernelTcpCounters(values);
    }

    /** The counters that changed since {@code before}, as {@code name +delta}, one line. */
    String changedSince(KernelTcpCounters before) {
        return values.entrySet().stream()
                .filter(counter -> !counter.getValue().equals(before.values().getOrDefault(counter.getKey(), 0L)))
                .map(counter -> counter.getKey() + " +" + (counter.getValue()
                        - before.values().getOrDefault(counter.getKey(), 0L)))
                .collect(Collectors.joining(", "));
    }
}
