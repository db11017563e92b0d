package io.rdma.spring.channel;

import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.naming.UnknownRdmaNameException;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The registry of channels alone: declared queue pairs are UP channels from the start; a peer's
 * channel is opened DOWN, goes up and down with its connection and is gone once closed; followers
 * are told every change, in order, and one that registers late is told of the channels that are
 * UP then.
 */
class RdmaChannelsTests {

    private static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.7", 7471);

    private SimulatedLoopback loopback;
    private RdmaChannels channels;

    @BeforeEach
    void openTheRegistry() {
        loopback = new SimulatedLoopback();
        channels = new RdmaChannels(loopback.resources());
    }

    @AfterEach
    void close() {
        loopback.close();
    }

    @Test
    void declaredQueuePairsNoConnectionBringsUpAreUpChannelsFromTheStart() {
        assertThat(channels.names()).containsExactly(SimulatedLoopback.CLIENT, SimulatedLoopback.SERVER);
        RdmaChannel client = channels.channel(SimulatedLoopback.CLIENT, "the test");
        assertThat(client.state()).isEqualTo(ChannelState.UP);
        assertThat(client.queuePair()).isSameAs(loopback.client());
        assertThat(client.memoryPool()).isSameAs(loopback.clientBuffers());
        assertThat(client.source()).isEqualTo(SimulatedLoopback.CLIENT);
    }

    @Test
    void aPeersChannelIsOpenedDownGoesUpAndDownAndIsGoneOnceClosedAndItsFollowersAreToldInOrder() {
        Recorder ofSource = new Recorder();
        Recorder ofAll = new Recorder();
        channels.follow("echo", ofSource);
        channels.followAll(ofAll);

        RdmaChannel peer = channels.open("echo#1", "echo", peerQueuePair(), SimulatedLoopback.SERVER);
        assertThat(peer.state()).isEqualTo(ChannelState.DOWN);
        assertThat(channels.get("echo#1")).isSameAs(peer);
        channels.up("echo#1", PEER);
        assertThat(peer.remote()).isEqualTo(PEER);
        channels.down("echo#1", "IBV_EVENT_QP_FATAL");
        assertThat(peer.lastFailure()).isEqualTo("IBV_EVENT_QP_FATAL");
        channels.up("echo#1", PEER);
        channels.close("echo#1", "the peer disconnected");

        List<String> changes = List.of("up echo#1", "down echo#1", "up echo#1", "gone echo#1");
        assertThat(ofSource.told).containsExactlyElementsOf(changes);
        assertThat(ofAll.told).containsExactlyElementsOf(changes);
        assertThat(peer.state()).isEqualTo(ChannelState.GONE);
        assertThat(channels.get("echo#1")).isNull();
        assertThat(channels.names()).doesNotContain("echo#1");
        assertThatThrownBy(() -> channels.channel("echo#1", "RdmaTemplate.send(channel, ...)"))
                .isInstanceOf(UnknownRdmaNameException.class)
                .hasMessageContaining("RdmaTemplate.send(channel, ...) names channel 'echo#1'");
    }

    /**
     * A channel renewed on a fresh queue pair for its next connection: its followers are told the
     * channel on the used queue pair is gone, and its name finds the successor, DOWN on the fresh
     * queue pair with the same source, pool and last failure, without a moment where it finds nothing.
     */
    @Test
    void aRenewedChannelIsGoneAndItsNameFindsItsSuccessorOnTheFreshQueuePair() {
        Recorder ofSource = new Recorder();
        channels.follow("kv", ofSource);
        RdmaChannel used = channels.open("kv@a", "kv", peerQueuePair(), SimulatedLoopback.SERVER);
        channels.up("kv@a", PEER);
        channels.down("kv@a", "completion RETRY_EXC_ERR");
        QueuePair fresh = peerQueuePair();

        RdmaChannel successor = channels.renew("kv@a", fresh);

        assertThat(ofSource.told).containsExactly("up kv@a", "down kv@a", "gone kv@a");
        assertThat(used.state()).isEqualTo(ChannelState.GONE);
        assertThat(channels.get("kv@a")).isSameAs(successor).isNotSameAs(used);
        assertThat(successor.queuePair()).isSameAs(fresh);
        assertThat(successor.state()).isEqualTo(ChannelState.DOWN);
        assertThat(successor.source()).isEqualTo("kv");
        assertThat(successor.memoryPool()).isSameAs(used.memoryPool());
        assertThat(successor.lastFailure()).isEqualTo("completion RETRY_EXC_ERR");
        assertThat(successor.remote()).isEqualTo(PEER);
        channels.up("kv@a", PEER);
        assertThat(ofSource.told).endsWith("up kv@a");
        assertThat(used.state()).as("the successor's changes are its own").isEqualTo(ChannelState.GONE);
    }

    @Test
    void aFollowerOfOneSourceIsNotToldOfAnother() {
        Recorder ofOther = new Recorder();
        channels.follow("other", ofOther);

        channels.open("echo#1", "echo", peerQueuePair(), SimulatedLoopback.SERVER);
        channels.up("echo#1", PEER);
        channels.close("echo#1", "the peer disconnected");

        assertThat(ofOther.told).isEmpty();
    }

    @Test
    void aFollowerThatRegistersLateIsToldOfTheChannelsThatAreUpThen() {
        channels.open("echo#1", "echo", peerQueuePair(), SimulatedLoopback.SERVER);
        channels.up("echo#1", PEER);
        channels.open("echo#2", "echo", peerQueuePair(), SimulatedLoopback.SERVER);
        channels.open("echo#3", "echo", peerQueuePair(), SimulatedLoopback.SERVER);
        channels.up("echo#3", PEER);
        channels.down("echo#3", "completion RETRY_EXC_ERR");

        Recorder late = new Recorder();
        channels.follow("echo", late);

        assertThat(late.told).containsExactly("up echo#1");
        channels.up("echo#2", PEER);
        assertThat(late.told).containsExactly("up echo#1", "up echo#2");
    }

    @Test
    void aNameIsOpenOnceAtATimeAndOnlyAnOpenChannelChangesState() {
        channels.open("echo#1", "echo", peerQueuePair(), SimulatedLoopback.SERVER);

        assertThatIllegalStateException()
                .isThrownBy(() -> channels.open("echo#1", "echo", peerQueuePair(), SimulatedLoopback.SERVER))
                .withMessageContaining("channel 'echo#1' is open already");
        assertThatIllegalStateException().isThrownBy(() -> channels.up("echo#9", PEER))
                .withMessageContaining("channel 'echo#9' is not open");
    }

    @Test
    void aFailingFollowerKeepsNeitherTheOthersNorTheChangeFromHappening() {
        Recorder after = new Recorder();
        channels.followAll(new ChannelFollower() {
            @Override
            public void up(RdmaChannel channel) {
                throw new IllegalStateException("a broken follower");
            }

            @Override
            public void down(RdmaChannel channel) {
            }
        });
        channels.followAll(after);

        channels.open("echo#1", "echo", peerQueuePair(), SimulatedLoopback.SERVER);
        channels.up("echo#1", PEER);

        assertThat(after.told).containsExactly("up echo#1");
        assertThat(channels.get("echo#1").state()).isEqualTo(ChannelState.UP);
    }

    private QueuePair peerQueuePair() {
        return loopback.protectionDomain().createQueuePair(QueuePairOptions.of(QueuePairType.RC,
                loopback.completionQueue(), QueuePairCapabilities.of(4, 4)));
    }

    /** What it was told, as "up|down|gone channel". */
    private static final class Recorder implements ChannelFollower {
        final List<String> told = new CopyOnWriteArrayList<>();

        @Override
        public void up(RdmaChannel channel) {
            told.add("up " + channel.name());
        }

        @Override
        public void down(RdmaChannel channel) {
            told.add("down " + channel.name());
        }

        @Override
        public void gone(RdmaChannel channel) {
            told.add("gone " + channel.name());
        }
    }
}
