package io.rdma.verbs.spi;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which posted WRs a completion retires (verbs manual §7.1.6: the send queue holds every WR until the
 * next signaled one completes; a send queue completes in order). wr_id is the application's
 * opaque value, so these cases repeat it on purpose.
 */
class PostedSendRingTest {

    private static final boolean SUCCESS = true;
    private static final boolean ERROR = false;

    @Test
    void aSignaledCompletionRetiresItselfAndTheUnsignaledWorkRequestsBeforeIt() {
        PostedSendRing ring = new PostedSendRing(16);
        long[] positions = new long[5];
        for (int i = 0; i < 4; i++) {
            positions[i] = ring.record(0, false);
        }
        positions[4] = ring.record(0, true);

        long completed = ring.completedPosition(0, SUCCESS);

        assertThat(completed).isEqualTo(positions[4]);
        ring.retireThrough(completed);
        assertThat(ring.outstanding()).isZero();
    }

    @Test
    void aSuccessRetiresOnlyThroughTheOldestSignaledWorkRequestWhateverTheWrIds() {
        PostedSendRing ring = new PostedSendRing(8);
        ring.record(7, false);
        long firstSignaled = ring.record(7, true);
        ring.record(7, false);
        ring.record(7, true);

        ring.retireThrough(ring.completedPosition(7, SUCCESS));

        assertThat(ring.head()).isEqualTo(firstSignaled + 1);
        assertThat(ring.outstanding()).isEqualTo(2);
    }

    @Test
    void selectiveSignalingChainsWithRepeatedWrIdsNeverLeakSlots() {
        PostedSendRing ring = new PostedSendRing(16);
        for (int chain = 0; chain < 100; chain++) {
            for (int i = 0; i < 16; i++) {
                ring.record(0, i == 15);
            }
            ring.retireThrough(ring.completedPosition(0, SUCCESS));
            assertThat(ring.outstanding()).as("after chain %d", chain).isZero();
        }
    }

    @Test
    void anErrorCompletionOfAnUnsignaledWorkRequestRetiresThroughItsWrId() {
        PostedSendRing ring = new PostedSendRing(8);
        ring.record(1, false);
        long failed = ring.record(2, false);
        long flushed = ring.record(3, true);

        assertThat(ring.completedPosition(2, ERROR)).isEqualTo(failed);
        ring.retireThrough(failed);
        assertThat(ring.completedPosition(3, ERROR)).isEqualTo(flushed);
    }

    @Test
    void aCompletionNoOutstandingWorkRequestCanHaveProducedRetiresNothing() {
        PostedSendRing ring = new PostedSendRing(8);
        ring.record(1, false);
        ring.record(2, true);
        ring.record(3, true);

        assertThat(ring.completedPosition(3, ERROR)).as("WR 3 cannot fail before signaled WR 2 completes")
                .isEqualTo(-1);
        ring.clear();
        assertThat(ring.completedPosition(2, SUCCESS)).isEqualTo(-1);
    }

    @Test
    void unpostedWorkRequestsAreForgottenNewestFirst() {
        PostedSendRing ring = new PostedSendRing(4);
        long kept = ring.record(1, true);
        ring.record(1, true);
        ring.record(1, true);

        ring.unrecord(2);

        assertThat(ring.outstanding()).isEqualTo(1);
        assertThat(ring.completedPosition(1, SUCCESS)).isEqualTo(kept);
    }

    @Test
    void positionsKeepCountingFarPastTheRingSize() {
        PostedSendRing ring = new PostedSendRing(5);
        for (int i = 0; i < 10_000; i++) {
            ring.record(42, i % 5 == 4);
            if (i % 5 == 4) {
                assertThat(ring.outstanding()).isEqualTo(5);
                ring.retireThrough(ring.completedPosition(42, SUCCESS));
            }
        }
        assertThat(ring.outstanding()).isZero();
    }
}
