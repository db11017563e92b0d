package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The attribute masks of the RESET → INIT → RTR → RTS walk differ per transport (verbs manual §6.2). */
class ConnectOptionsTest {

    private final ConnectOptions options = ConnectOptions.builder().port(2).gidIndex(1).sendPsn(42).build();
    /** A RoCE endpoint: no LID, the GID is the address. */
    private final QueuePairEndpoint remote = new QueuePairEndpoint(0x99, 0, Gid.parse("::ffff:10.0.0.2"), 300);

    @Test
    void initTakesAccessFlagsForConnectedTransportsAndAQkeyForDatagrams() {
        QueuePairAttributes rc = options.initAttributes(QueuePairType.RC);
        QueuePairAttributes ud = options.initAttributes(QueuePairType.UD);

        assertThat(rc.state()).isEqualTo(QueuePairState.INIT);
        assertThat(rc.port()).isEqualTo(2);
        assertThat(rc.accessFlags()).isEqualTo(options.accessFlags());
        assertThat(rc.qkey()).isNull();
        assertThat(ud.qkey()).isEqualTo(options.qkey());
        assertThat(ud.accessFlags()).isNull();
    }

    @Test
    void readyToReceiveAimsConnectedTransportsAtTheRemoteEndpoint() {
        QueuePairAttributes rc = options.readyToReceiveAttributes(QueuePairType.RC, remote);
        QueuePairAttributes uc = options.readyToReceiveAttributes(QueuePairType.UC, remote);
        QueuePairAttributes ud = options.readyToReceiveAttributes(QueuePairType.UD, null);

        assertThat(rc.destQpNumber()).isEqualTo(0x99);
        assertThat(rc.receivePsn()).isEqualTo(300);
        assertThat(rc.addressVector().isGlobal()).isTrue();
        assertThat(rc.addressVector().globalRoute().sourceGidIndex()).isEqualTo(1);
        assertThat(rc.maxDestRdAtomic()).isEqualTo(options.maxDestRdAtomic());
        assertThat(rc.minRnrTimer()).isEqualTo(options.minRnrTimer());
        assertThat(uc.destQpNumber()).isEqualTo(0x99);
        assertThat(uc.maxDestRdAtomic()).as("UC has no RDMA reads or atomics").isNull();
        assertThat(ud.state()).isEqualTo(QueuePairState.RTR);
        assertThat(ud.destQpNumber()).isNull();
    }

    @Test
    void readyToSendSetsRetriesOnlyForReliableConnections() {
        QueuePairAttributes rc = options.toBuilder().retries(3, 4, 5, 6).build().readyToSendAttributes(QueuePairType.RC);
        QueuePairAttributes uc = options.readyToSendAttributes(QueuePairType.UC);

        assertThat(rc.sendPsn()).isEqualTo(42);
        assertThat(rc.timeout()).isEqualTo(3);
        assertThat(rc.retryCount()).isEqualTo(4);
        assertThat(rc.rnrRetry()).isEqualTo(5);
        assertThat(uc.sendPsn()).isEqualTo(42);
        assertThat(uc.timeout()).isNull();
        assertThat(uc.retryCount()).isNull();
    }

    @Test
    void anEndpointWithALidIsReachedByLidUnlessAGlobalRouteIsAskedFor() {
        QueuePairEndpoint infiniBand = new QueuePairEndpoint(1, 7, Gid.parse("fe80::2:c903:1:1"), 0);
        AddressVector byLid = infiniBand.addressVector(options);
        AddressVector acrossSubnets = infiniBand.addressVector(options.toBuilder().globalRoute(true).build());

        assertThat(byLid.isGlobal()).isFalse();
        assertThat(byLid.destinationLid()).isEqualTo(7);
        assertThat(byLid.portNumber()).isEqualTo(2);
        assertThat(acrossSubnets.isGlobal()).isTrue();
        assertThat(acrossSubnets.destinationLid()).isEqualTo(7);
        assertThat(acrossSubnets.globalRoute().destinationGid()).isEqualTo(infiniBand.gid());
    }

    @Test
    void aPathCarriesTheServiceLevelAndTheGrhSettingsAsked() {
        ConnectOptions qos = options.toBuilder().serviceLevel(3).hopLimit(8).trafficClass(0x68).flowLabel(0x12345)
                .build();
        AddressVector path = qos.readyToReceiveAttributes(QueuePairType.RC, remote).addressVector();

        assertThat(path.serviceLevel()).isEqualTo(3);
        assertThat(path.globalRoute()).isEqualTo(new GlobalRoute(remote.gid(), 1, 0x12345, 8, 0x68));
    }

    @Test
    void readAndAtomicDepthsGoToRtsAsInitiatorAndToRtrAsResponder() {
        ConnectOptions depths = options.toBuilder().readAtomicDepths(2, 5).build();

        assertThat(depths.readyToSendAttributes(QueuePairType.RC).maxRdAtomic()).isEqualTo(2);
        assertThat(depths.readyToReceiveAttributes(QueuePairType.RC, remote).maxDestRdAtomic()).isEqualTo(5);
    }

    @Test
    void aBuilderCopyChangesOnlyWhatItSets() {
        ConnectOptions changed = options.toBuilder().pathMtu(Mtu.MTU_4096).build();

        assertThat(changed.pathMtu()).isEqualTo(Mtu.MTU_4096);
        assertThat(options.pathMtu()).isEqualTo(ConnectOptions.defaults().pathMtu());
        assertThat(changed.port()).isEqualTo(2);
        assertThat(changed.gidIndex()).isEqualTo(1);
        assertThat(changed.sendPsn()).isEqualTo(42);
    }

    @Test
    void anAttributeOutsideItsFieldIsRefusedNamingIt() {
        assertThatThrownBy(() -> ConnectOptions.builder().serviceLevel(16).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("serviceLevel is 16")
                .hasMessageContaining("0 to 15");
        assertThatThrownBy(() -> ConnectOptions.builder().retries(14, 8, 7, 12).build())
                .hasMessageContaining("retryCount is 8");
        assertThatThrownBy(() -> ConnectOptions.builder().flowLabel(1 << 20).build())
                .hasMessageContaining("flowLabel");
    }
}
