package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Unsigned64;
import io.rdma.verbs.provider.support.SoftwareCompletionCounter;
import io.rdma.verbs.spi.CompletionCounterHandle;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * How completion counters work on a context. rdma-core adds {@code ibv_create_comp_cntr} in
 * release 65 and only EFA implements it today; where the library or the device lacks it
 * (rxe included), counters are {@link SoftwareCompletionCounter software-counted}, which sees
 * only the local op kinds. The 65 ABI has no external counter memory, so a counter asked
 * for with external memory is software-counted too.
 */
final class CompletionCounters {

    /** What the completion path can count: the QP's own WRs and its receives. */
    static final Set<CompletionCounterOp> SOFTWARE_OPS = EnumSet.of(CompletionCounterOp.SEND,
            CompletionCounterOp.RECV, CompletionCounterOp.RDMA_READ, CompletionCounterOp.RDMA_WRITE);

    private final NativeContext context;
    /** Null when counters are software-counted: the library has no such verbs, or the device no caps. */
    private final @Nullable Hardware hardware;

    /** The bound verbs and what the device reports it can count with them. */
    private record Hardware(HardwareCompletionCounters verbs, HardwareCompletionCounters.Caps caps) {
    }

    private CompletionCounters(NativeContext context, @Nullable Hardware hardware) {
        this.context = context;
        this.hardware = hardware;
    }

    static CompletionCounters detect(NativeContext context) {
        Optional<Hardware> hardware = HardwareCompletionCounters.bind()
                .flatMap(verbs -> verbs.query(context.segment()).map(caps -> new Hardware(verbs, caps)));
        return new CompletionCounters(context, hardware.orElse(null));
    }

    /** Software counters are plain memory: as many as the process can hold. */
    int maxCounters() {
        return hardware == null ? Integer.MAX_VALUE : hardware.caps().maxCounters();
    }

    long maxValue() {
        return hardware == null ? Unsigned64.MAX : hardware.caps().maxValue();
    }

    Set<CompletionCounterOp> supportedOps() {
        return hardware == null ? SOFTWARE_OPS : hardware.caps().supportedOps();
    }

    CompletionCounterHandle create(CompletionCounterOptions options) {
        if (hardware == null || options.usesExternalMemory()) {
            // The full 64-bit range: one more wraps to zero, as a 64-bit add does.
            SoftwareCompletionCounter counter = SoftwareCompletionCounter.of(options, Unsigned64.MAX,
                    CompletionCounterMode.SOFTWARE, context.deviceName(),
                    () -> context.census().destroyed(ResourceKind.COMPLETION_COUNTER));
            context.census().created(ResourceKind.COMPLETION_COUNTER);
            return counter;
        }
        return HardwareCompletionCounter.create(context, hardware.verbs(), hardware.caps().maxValue());
    }
}
