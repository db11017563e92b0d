package io.rdma.verbs.provider.nativ;

import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.spi.CompCounterHandle;

import java.util.EnumSet;
import java.util.Set;

/**
 * How completion counters work on a context. rdma-core adds {@code ibv_create_comp_cntr} in
 * release 65 (IBVERBS_1.18), and only EFA implements it today; everywhere else, rxe
 * included, they are {@link SoftwareCompletionCounter software-counted}. Software cannot
 * see remote reads and writes that carry no immediate, so it offers only the local op kinds.
 */
final class CompletionCounters {

    /** What the completion path can count: the QP's own WRs and its receives. */
    static final Set<CompletionCounterOp> SOFTWARE_OPS = EnumSet.of(CompletionCounterOp.SEND,
            CompletionCounterOp.RECV, CompletionCounterOp.RDMA_READ, CompletionCounterOp.RDMA_WRITE);

    private final NativeContext context;

    private CompletionCounters(NativeContext context) {
        this.context = context;
    }

    static CompletionCounters detect(NativeContext context) {
        return new CompletionCounters(context);
    }

    /** Software counters are plain memory: as many as the process can hold. */
    int maxCounters() {
        return Integer.MAX_VALUE;
    }

    long maxValue() {
        return -1L;
    }

    Set<CompletionCounterOp> supportedOps() {
        return SOFTWARE_OPS;
    }

    CompCounterHandle create(CompletionCounterOptions options) {
        return new SoftwareCompletionCounter(context, options);
    }
}
