package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SendQueueDepthTest {

    @Test
    void everyPostedRequestHoldsASlotUntilRetired() {
        SendQueueDepth depth = new SendQueueDepth(4);
        depth.record(1);
        depth.record(2);

        assertThat(depth.outstanding()).isEqualTo(2);
        assertThat(depth.hasRoomFor(2)).isTrue();
        assertThat(depth.hasRoomFor(3)).isFalse();
    }

    @Test
    void signaledCompletionRetiresTheUnsignaledRequestsBeforeIt() {
        SendQueueDepth depth = new SendQueueDepth(8);
        for (long wrId = 10; wrId < 15; wrId++) {
            depth.record(wrId);
        }

        depth.retireThrough(12);

        assertThat(depth.outstanding()).isEqualTo(2);
        depth.retireThrough(14);
        assertThat(depth.outstanding()).isZero();
    }

    @Test
    void completionOfAnUnknownRequestRetiresNothing() {
        SendQueueDepth depth = new SendQueueDepth(4);
        depth.record(1);
        depth.record(2);

        depth.retireThrough(99);

        assertThat(depth.outstanding()).isEqualTo(2);
    }

    @Test
    void repeatedWrIdsRetireOneOccurrenceAtATime() {
        SendQueueDepth depth = new SendQueueDepth(4);
        depth.record(7);
        depth.record(7);
        depth.record(7);

        depth.retireThrough(7);

        assertThat(depth.outstanding()).isEqualTo(2);
    }

    @Test
    void refusedRequestsAreForgottenNewestFirst() {
        SendQueueDepth depth = new SendQueueDepth(4);
        depth.record(1);
        depth.record(2);
        depth.record(3);

        depth.unrecord(2);
        depth.retireThrough(2);

        assertThat(depth.outstanding()).as("wr 2 was forgotten, so its completion matches nothing").isEqualTo(1);
        depth.retireThrough(1);
        assertThat(depth.outstanding()).isZero();
    }

    @Test
    void ringKeepsCountingCorrectlyFarPastItsSize() {
        SendQueueDepth depth = new SendQueueDepth(5);
        for (long wrId = 0; wrId < 10_000; wrId++) {
            assertThat(depth.hasRoomFor(1)).isTrue();
            depth.record(wrId);
            if (wrId % 5 == 4) {
                assertThat(depth.outstanding()).isEqualTo(5);
                assertThat(depth.hasRoomFor(1)).isFalse();
                depth.retireThrough(wrId);
            }
        }
        assertThat(depth.outstanding()).isZero();
        assertThat(depth.capacity()).isEqualTo(5);
    }

    @Test
    void clearEmptiesTheQueueAsResetDoes() {
        SendQueueDepth depth = new SendQueueDepth(2);
        depth.record(1);
        depth.record(2);

        depth.clear();

        assertThat(depth.outstanding()).isZero();
        assertThat(depth.hasRoomFor(2)).isTrue();
    }
}
