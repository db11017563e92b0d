package io.rdma.verbs.api;

import io.rdma.verbs.spi.CountersHandle;

import java.util.Arrays;
import java.util.List;

/**
 * {@code struct ibv_counters} (flow counters): counter points attached at indexes, each
 * collecting packets or bytes of the flows the handle is bound to. Attach points statically
 * (flow {@code null}) before creating the flow; once bound, further attaches fail with EBUSY.
 *
 * <p>Closing it does not cascade: flows use the counters without depending on them. While a
 * flow bound to them is open the provider refuses the destroy (EBUSY) and the counters stay
 * open; ibv_create_counters(3) only asks that they be detached first.
 *
 * <p>Thread-safe: attaches are serialized with the context's creations and closes; reads may
 * come from any thread, and a read racing a close either finishes before the counters are
 * destroyed or throws {@link ResourceClosedException}.
 */
public final class FlowCounters extends VerbsResource {

    private final CountersHandle handle;
    /** Reads hold it shared and the destroy exclusively, so that no read is inside the provider at the destroy. */
    private final UseGuard uses = new UseGuard(this);

    FlowCounters(DeviceContext context, CountersHandle handle) {
        super(ResourceKind.FLOW_COUNTERS, context, handle, List.of(context));
        this.handle = handle;
    }

    /**
     * {@code ibv_attach_counters_point_flow} with a null flow: {@code description} accumulates
     * into {@code index} once a flow is created with these counters. Attaching the same index
     * again aggregates both into it.
     *
     * @throws VerbsException EINVAL when {@code index} is negative or beyond what the device
     *         holds; EBUSY when the counters are already bound to a flow; ENOTSUP when the device
     *         cannot collect {@code description}; ENOMEM when memory runs short
     *         (ibv_attach_counters_point_flow(3))
     * @throws ResourceClosedException when the counters are closed
     */
    public void attach(CounterDescription description, int index) {
        context().lifecycleLock().lock();
        try {
            ensureOpen();
            if (index < 0) {
                throw new VerbsException("ibv_attach_counters_point_flow", Errno.EINVAL, "index " + index + " < 0",
                        null);
            }
            handle.attachPoint(description, index, null);
        } finally {
            context().lifecycleLock().unlock();
        }
    }

    /**
     * {@code ibv_read_counters}: the value at each index defined so far, u64s (read them with {@link Unsigned64}).
     *
     * @throws VerbsException the errno {@code ibv_read_counters} fails with
     * @throws ResourceClosedException when the counters are closed, before or while this is called
     */
    public long[] read() {
        long[] values = new long[64];
        return Arrays.copyOf(values, read(values));
    }

    /**
     * {@code ibv_read_counters} into a caller's array, without allocating; returns the indexes defined.
     *
     * @throws VerbsException the errno {@code ibv_read_counters} fails with
     * @throws ResourceClosedException when the counters are closed, before or while this is called
     */
    public int read(long[] values) {
        return uses.readInto(handle, values, CountersHandle::read);
    }

    CountersHandle countersHandle() {
        return handle;
    }


    @Override
    void destroyHandle() {
        uses.destroy(handle::destroy);
    }

    @Override
    String describe() {
        return "flow counters on " + context().deviceName();
    }
}
