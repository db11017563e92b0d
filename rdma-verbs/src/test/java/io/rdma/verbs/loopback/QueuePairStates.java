package io.rdma.verbs.loopback;

import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting for the state a QP enters after an error completion. A device need not have moved the
 * QP when the completion is polled: rxe's completer posts the error CQE (do_complete) before it
 * moves the QP to ERR (rxe_qp_error, drivers/infiniband/sw/rxe/rxe_comp.c, COMPST_ERROR), so on
 * rxe0 ibv_query_qp right after the poll can still say RTS (seen in CI under emulation, once in a
 * path MTU mismatch and once after RNR retries ran out). The IB spec requires the transition, not
 * its order against the CQE; the simulated fabric moves the QP first, so there this returns at once.
 */
final class QueuePairStates {

    private QueuePairStates() {
    }

    /** Polls {@code qp}'s state until it is {@code expected}; fails with the last state after {@link LoopbackFabric#WAIT}. */
    static void awaitState(QueuePair qp, QueuePairState expected) {
        long deadline = System.nanoTime() + LoopbackFabric.WAIT.toNanos();
        QueuePairState state = qp.state();
        while (state != expected && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            state = qp.state();
        }
        assertThat(state).as("the state of %s within %s", qp, LoopbackFabric.WAIT).isEqualTo(expected);
    }
}
