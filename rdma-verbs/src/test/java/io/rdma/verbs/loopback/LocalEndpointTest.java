package io.rdma.verbs.loopback;

import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.QueuePairEndpoint;
import io.rdma.verbs.api.QueuePairType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a QP advertises to its peer (verbs manual §11.2): its QP number, its port's LID, the GID at
 * the index it connects with (index 0 included: every port has a GID there, the link-local one on
 * RoCE, subnet prefix and port GUID on InfiniBand) and the PSN it will start sending from.
 */
class LocalEndpointTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void gidIndexZeroAdvertisesThePortsRealGid() {
        Loopback loopback = fabric.pair(QueuePairType.RC);
        ConnectOptions indexZero = fabric.connectOptions().toBuilder().gidIndex(0).build();

        QueuePairEndpoint endpoint = loopback.requester().localEndpoint(indexZero);

        Gid portGid = fabric.context().queryGid(fabric.port(), 0);
        assertThat(portGid.isZero()).as("the GID at index 0 of port %d", fabric.port()).isFalse();
        assertThat(endpoint.gid()).isEqualTo(portGid);
    }

    @Test
    void theEndpointCarriesTheQpNumberLidAndTheSendPsnOfTheOptions() {
        Loopback loopback = fabric.pair(QueuePairType.RC);
        ConnectOptions options = fabric.connectOptions().toBuilder().sendPsn(0x123456).build();

        QueuePairEndpoint endpoint = loopback.responder().localEndpoint(options);

        assertThat(endpoint.qpNumber()).isEqualTo(loopback.responder().qpNumber());
        assertThat(endpoint.lid()).isEqualTo(fabric.portAttributes().lid());
        assertThat(endpoint.packetSequenceNumber()).isEqualTo(0x123456);
        assertThat(endpoint.gid()).isEqualTo(fabric.context().queryGid(fabric.port(), fabric.gidIndex()));
    }
}
