package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The attribute masks of the RESET → INIT → RTR → RTS walk differ per transport (verbs manual §6.2). */
class ConnectOptionsTest {

    private final ConnectOptions options = ConnectOptions.defaults().withPort(2).withGidIndex(1).withSendPsn(42);
    private final QueuePairEndpoint remote = new QueuePairEndpoint(0x99, 7, Gid.parse("::ffff:10.0.0.2"), 300);

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
        QueuePairAttributes rc = options.withRetries(3, 4, 5, 6).readyToSendAttributes(QueuePairType.RC);
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
    void endpointWithoutGidIsReachedByLid() {
        AddressVector byLid = new QueuePairEndpoint(1, 7, Gid.ZERO, 0).addressVector(1, 0);
        AddressVector byGid = remote.addressVector(1, 3);

        assertThat(byLid.isGlobal()).isFalse();
        assertThat(byLid.destinationLid()).isEqualTo(7);
        assertThat(byGid.isGlobal()).isTrue();
        assertThat(byGid.globalRoute().destinationGid()).isEqualTo(remote.gid());
        assertThat(byGid.globalRoute().sourceGidIndex()).isEqualTo(3);
    }
}
