package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.spi.CompletionCounterHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/** A completion counter the device keeps ({@code ibv_create_comp_cntr} succeeded). */
final class HardwareCompletionCounter implements CompletionCounterHandle {

    private final NativeContext context;
    private final HardwareCompletionCounters verbs;
    private final MemorySegment counter;
    private final long maxValue;

    private HardwareCompletionCounter(NativeContext context, HardwareCompletionCounters verbs, MemorySegment counter,
                                      long maxValue) {
        this.context = context;
        this.verbs = verbs;
        this.counter = counter;
        this.maxValue = maxValue;
        context.census().created(ResourceKind.COMPLETION_COUNTER);
    }

    static HardwareCompletionCounter create(NativeContext context, HardwareCompletionCounters verbs, long maxValue) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(HardwareCompletionCounters.INIT_ATTR);
            attr.set(JAVA_INT, HardwareCompletionCounters.INIT_ATTR_TYPE, HardwareCompletionCounters.TYPE_WRS);
            MemorySegment counter = verbs.create.pointer("work-request counter on " + context.deviceName(),
                    context.segment(), attr);
            return new HardwareCompletionCounter(context, verbs, counter, maxValue);
        }
    }

    /** {@code ibv_qp_attach_comp_cntr}: the device checks state, overlap and op support. */
    void attachTo(MemorySegment qp, int opMask, String detail) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(HardwareCompletionCounters.ATTACH_ATTR);
            attr.set(JAVA_INT, HardwareCompletionCounters.ATTACH_ATTR_OP_MASK, opMask);
            verbs.attach.status(detail, qp, counter, attr);
        }
    }

    @Override
    public long completions() {
        return HardwareCompletionCounters.readWord(verbs.read, counter);
    }

    @Override
    public long errors() {
        return HardwareCompletionCounters.readWord(verbs.readErrors, counter);
    }

    @Override
    public void setCompletions(long value) {
        verbs.set.orElseThrow(() -> HardwareCompletionCounters.unsupported("ibv_set_comp_cntr"))
                .status(null, counter, value);
    }

    @Override
    public void setErrors(long value) {
        verbs.setErrors.orElseThrow(() -> HardwareCompletionCounters.unsupported("ibv_set_err_comp_cntr"))
                .status(null, counter, value);
    }

    @Override
    public void incrementCompletions(long amount) {
        verbs.increment.orElseThrow(() -> HardwareCompletionCounters.unsupported("ibv_inc_comp_cntr"))
                .status(null, counter, amount);
    }

    @Override
    public void incrementErrors(long amount) {
        verbs.incrementErrors.orElseThrow(() -> HardwareCompletionCounters.unsupported("ibv_inc_err_comp_cntr"))
                .status(null, counter, amount);
    }

    @Override
    public long maxValue() {
        return maxValue;
    }

    @Override
    public CompletionCounterMode mode() {
        return CompletionCounterMode.HARDWARE;
    }

    @Override
    public void destroy() {
        verbs.destroy.status("a QP may still be attached", counter);
        context.census().destroyed(ResourceKind.COMPLETION_COUNTER);
    }
}
