package io.rdma.verbs.api;

import io.rdma.verbs.spi.CompletionCounterHandle;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code struct ibv_comp_cntr}: aggregate completion and error counts of the QPs it is
 * attached to ({@link QueuePair#attachCompletionCounter}). Counts wrap to zero past
 * {@link #maxValue()}. It cannot be destroyed while attached to an open QP (EBUSY); closing
 * the device context destroys the QPs first, so it always succeeds there.
 *
 * <p>Closing it does not cascade: attached QPs are not its dependents. While one is open the
 * close fails with EBUSY and the counter stays open (ibv_create_comp_cntr(3),
 * ibv_qp_attach_comp_cntr(3)).
 *
 * <p>Thread-safe: counts are updated atomically by the device or provider; a set racing updates
 * loses them, as the man page warns. Reads, sets and increments racing a close either finish
 * before the counter is destroyed or throw {@link ResourceClosedException}: a hardware counter's
 * memory is freed by {@code ibv_destroy_comp_cntr}.
 */
public final class CompletionCounter extends VerbsResource {

    private final CompletionCounterHandle handle;
    private final List<QueuePair> attachedTo = new ArrayList<>();
    /**
     * The accessors hold it shared and the destroy exclusively, so that no read or update is
     * inside the provider when the counter is destroyed. Completions are counted by the
     * provider on its own, without it: the completion path never takes this lock.
     */
    private final UseGuard uses = new UseGuard(this);

    CompletionCounter(DeviceContext context, CompletionCounterHandle handle) {
        super(ResourceKind.COMPLETION_COUNTER, context, handle, List.of(context));
        this.handle = handle;
    }

    /**
     * Successful completions counted so far: a u64, read it with {@link Unsigned64}.
     *
     * @throws ResourceClosedException when the counter is closed, before or while this is called
     */
    public long completions() {
        return uses.read(handle, CompletionCounterHandle::completions);
    }

    /**
     * Completions in error counted so far: a u64, read it with {@link Unsigned64}.
     *
     * @throws ResourceClosedException when the counter is closed, before or while this is called
     */
    public long errors() {
        return uses.read(handle, CompletionCounterHandle::errors);
    }

    /**
     * {@code ibv_set_comp_cntr}; make sure the count is stable first, or concurrent updates are lost.
     *
     * @throws VerbsException EINVAL when {@code value} is above {@link #maxValue()}; the errno
     *         {@code ibv_set_comp_cntr} fails with
     * @throws ResourceClosedException when the counter is closed, before or while this is called
     */
    public void setCompletions(long value) {
        uses.change(handle, CompletionCounterHandle::setCompletions, value);
    }

    /**
     * {@code ibv_set_err_comp_cntr}.
     *
     * @throws VerbsException EINVAL when {@code value} is above {@link #maxValue()}; the errno
     *         {@code ibv_set_err_comp_cntr} fails with
     * @throws ResourceClosedException when the counter is closed, before or while this is called
     */
    public void setErrors(long value) {
        uses.change(handle, CompletionCounterHandle::setErrors, value);
    }

    /**
     * {@code ibv_inc_comp_cntr}.
     *
     * @throws VerbsException the errno {@code ibv_inc_comp_cntr} fails with
     * @throws ResourceClosedException when the counter is closed, before or while this is called
     */
    public void incrementCompletions(long amount) {
        uses.change(handle, CompletionCounterHandle::incrementCompletions, amount);
    }

    /**
     * {@code ibv_inc_err_comp_cntr}.
     *
     * @throws VerbsException the errno {@code ibv_inc_err_comp_cntr} fails with
     * @throws ResourceClosedException when the counter is closed, before or while this is called
     */
    public void incrementErrors(long amount) {
        uses.change(handle, CompletionCounterHandle::incrementErrors, amount);
    }

    /** {@code comp_count_max_value}, a u64 ({@link Unsigned64#MAX} for the full range): one past it wraps to zero. */
    public long maxValue() {
        return handle.maxValue();
    }

    /** Whether the device, the provider's completion path, or the simulated fabric keeps the count. */
    public CompletionCounterMode mode() {
        return handle.mode();
    }

    /** Open QPs this counter is attached to. */
    public List<QueuePair> attachedQueuePairs() {
        synchronized (attachedTo) {
            return attachedTo.stream().filter(qp -> !qp.isClosed()).toList();
        }
    }

    void attached(QueuePair qp) {
        synchronized (attachedTo) {
            attachedTo.removeIf(QueuePair::isClosed);
            attachedTo.add(qp);
        }
    }

    CompletionCounterHandle counterHandle() {
        return handle;
    }


    @Override
    void destroyHandle() {
        uses.destroy(handle::destroy);
    }

    @Override
    String describe() {
        return "completion counter on " + context().deviceName();
    }
}
