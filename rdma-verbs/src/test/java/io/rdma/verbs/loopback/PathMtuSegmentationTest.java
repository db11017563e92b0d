package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A message leaves as {@code max(1, ceil(bytes / path MTU))} packets, which the port counters
 * show. UC, because it sends no ACKs that the loopback port would count too.
 */
class PathMtuSegmentationTest {

    private static final String XMIT_PACKETS = "port_xmit_packets";
    private static final String RCV_PACKETS = "port_rcv_packets";
    private static final String XMIT_DATA = "port_xmit_data";
    /** Soft-RoCE's (rxe's) own names in {@code hw_counters/}, for a kernel that gives it no PMA set. */
    private static final String RXE_SENT_PACKETS = "sent_pkts";
    private static final String RXE_RECEIVED_PACKETS = "rcvd_pkts";

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @ParameterizedTest
    @CsvSource({"10000, MTU_1024, 10", "10000, MTU_256, 40", "1024, MTU_1024, 1", "0, MTU_1024, 1"})
    void messageLeavesAsOnePacketPerPathMtu(int bytes, Mtu pathMtu, long packets) {
        Map<String, Long> before = allCounters(fabric.context().portCounters(fabric.port()));
        if (fabric.isSimulated()) {
            assertThat(before).containsKeys(XMIT_PACKETS, RCV_PACKETS, XMIT_DATA);
        }
        Optional<String> sent = firstPresent(before, XMIT_PACKETS, RXE_SENT_PACKETS);
        Optional<String> received = firstPresent(before, RCV_PACKETS, RXE_RECEIVED_PACKETS);
        assumeTrue(sent.isPresent() && received.isPresent(),
                "the device exposes no port packet counters: " + before.keySet());
        Loopback loopback = fabric.pair(QueuePairType.UC).connect(fabric.connectOptions().toBuilder().pathMtu(pathMtu)
                .build());
        MemoryRegion source = fabric.region(Math.max(bytes, 1));
        MemoryRegion target = fabric.region(Math.max(bytes, 1));
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, Math.max(bytes, 1)));

        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, bytes));
        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(Completions.awaitOne(loopback.responderCq()).byteLength()).isEqualTo(bytes);

        Map<String, Long> after = allCounters(fabric.context().portCounters(fabric.port()));
        assertThat(after.get(sent.get()) - before.get(sent.get())).as(sent.get()).isEqualTo(packets);
        assertThat(after.get(received.get()) - before.get(received.get())).as(received.get()).isEqualTo(packets);
        if (after.containsKey(XMIT_DATA)) {
            assertThat((after.get(XMIT_DATA) - before.get(XMIT_DATA)) * 4).as("bytes, counted in 4-byte words")
                    .isGreaterThanOrEqualTo(bytes);
        }
    }

    /** {@code counters/} and {@code hw_counters/} together: the names this test looks for are in one or the other. */
    private static Map<String, Long> allCounters(PortCounters counters) {
        Map<String, Long> all = new HashMap<>(counters.hardwareCounters());
        all.putAll(counters.counters());
        return all;
    }

    private static Optional<String> firstPresent(Map<String, Long> counters, String... names) {
        return Arrays.stream(names).filter(counters::containsKey).findFirst();
    }
}
