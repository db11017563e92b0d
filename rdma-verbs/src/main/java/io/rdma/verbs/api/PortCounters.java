package io.rdma.verbs.api;

import java.util.Map;
import java.util.Objects;

/**
 * One read of all counters of a port, as the device exposes them (sysfs on Linux): the
 * InfiniBand PMA counters of {@code ports/<port>/counters/} and the driver's
 * {@code ports/<port>/hw_counters/}, each by file name. Which exist depends on the device and
 * kernel: Soft-RoCE (rxe) on Debian 12's kernel has both, the PMA set and its own
 * {@code sent_pkts}, {@code rcvd_pkts}, {@code retry_exceeded_err}, ...; so has an mlx5 port.
 *
 * <p>Values are u64s as the kernel gives them (read them with {@link Unsigned64}); the PMA data
 * counters {@code port_xmit_data} and {@code port_rcv_data} count 4-byte words, not bytes.
 *
 * <p>Immutable, so thread-safe.
 *
 * @param counters         {@code counters/} by file name, empty where the device has none
 * @param hardwareCounters {@code hw_counters/} by file name, empty where the device has none
 */
public record PortCounters(int portNumber, Map<String, Long> counters, Map<String, Long> hardwareCounters) {

    public PortCounters {
        counters = Map.copyOf(Objects.requireNonNull(counters, "counters"));
        hardwareCounters = Map.copyOf(Objects.requireNonNull(hardwareCounters, "hardwareCounters"));
    }
}
