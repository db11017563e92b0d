package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.PhysicalPortState;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.Verbs;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What monitoring reads of a simulated port: the physical state under the logical one, the link
 * rate, the board's identity, and only the counters a real device of its link layer has.
 */
class SimulatedPortMonitoringTest {

    @Test
    void aPortTakenDownPollsForItsLinkAndCountsTheLinkDowned() {
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED); DeviceContext context = verbs.device("sim0").open()) {
            PortAttributes up = context.queryPort(1);
            assertThat(up.state()).isEqualTo(PortState.ACTIVE);
            assertThat(up.physicalState()).isEqualTo(PhysicalPortState.LINK_UP);

            verbs.extension(FabricControl.class).orElseThrow().setPortState("sim0", 1, PortState.DOWN);

            PortAttributes down = context.queryPort(1);
            assertThat(down.state()).isEqualTo(PortState.DOWN);
            assertThat(down.physicalState()).isEqualTo(PhysicalPortState.POLLING);
            assertThat(context.portCounters(1).counters()).containsEntry("link_downed", 1L);
        }
    }

    @Test
    void theRateIsLaneRateTimesWidthAsSysfsShowsIt() {
        DeviceSpec edr4x = DeviceSpec.named("edr").speed(32, 2).build();
        DeviceSpec sdr1x = DeviceSpec.named("sdr").speed(1, 1).build();
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED, List.of(edr4x, sdr1x));
             DeviceContext edr = verbs.device("edr").open(); DeviceContext sdr = verbs.device("sdr").open()) {
            // "100 Gb/sec (4X EDR)" and "2.5 Gb/sec (1X SDR)", times 125,000,000 bytes per Gb/s
            assertThat(edr.queryPort(1).rateBytesPerSecond()).isEqualTo(12_500_000_000L);
            assertThat(sdr.queryPort(1).rateBytesPerSecond()).isEqualTo(312_500_000L);
        }
    }

    /** As rxe0 on Debian 12's kernel (seen in CI's guest): a RoCE port has the PMA set and rxe's own counters. */
    @Test
    void anInfinibandPortHasPmaCountersAndARoceOneRxesHardwareCountersBesides() {
        DeviceSpec roce = DeviceSpec.named("roce").linkLayer(LinkLayer.ETHERNET).build();
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED, List.of(DeviceSpec.named("ib").build(), roce));
             DeviceContext ib = verbs.device("ib").open(); DeviceContext eth = verbs.device("roce").open()) {
            PortCounters pma = ib.portCounters(1);
            assertThat(pma.counters()).containsKeys("port_xmit_data", "port_rcv_data", "port_xmit_packets",
                    "port_rcv_packets", "port_xmit_discards", "link_downed");
            assertThat(pma.hardwareCounters()).isEmpty();
            PortCounters rxe = eth.portCounters(1);
            assertThat(rxe.counters()).containsKeys("port_xmit_packets", "port_rcv_packets");
            assertThat(rxe.hardwareCounters()).containsOnlyKeys("sent_pkts", "rcvd_pkts", "link_downed");
        }
    }

    @Test
    void theBoardHasAnIdentity() {
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED); DeviceContext context = verbs.device("sim0").open()) {
            DeviceAttributes attributes = context.queryDevice();
            assertThat(attributes.boardId()).isEqualTo("SIM_sim0");
            assertThat(attributes.hcaType()).isEqualTo("MT4119");
            assertThat(verbs.requestedKind()).isEqualTo(ProviderKind.SIMULATED);
        }
    }
}
