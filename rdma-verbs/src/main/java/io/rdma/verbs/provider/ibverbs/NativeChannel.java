package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.ibverbs.generated.ibv_comp_channel;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.spi.ChannelHandle;
import io.rdma.verbs.spi.CqHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_comp_channel}. Its file descriptor is made non-blocking, which gives
 * {@code ibv_get_cq_event} the timeout it lacks: a wait first reads (an event already there
 * costs one system call, as perftest's blocking read does), and only when that says EAGAIN
 * waits with {@code poll(2)} and reads again. A wait allocates nothing: the out-pointers and
 * the poll and errno memory are the channel's, so waiters take turns (a waiter that cannot
 * get its turn before its timeout times out). A {@link #shutdown()} ends the waits within one
 * poll slice.
 */
final class NativeChannel implements ChannelHandle {

    /** {@code ibv_get_cq_event(channel, &cq, &cq_context)}, errno captured; exact types for {@code invokeExact}. */
    private static final MethodHandle GET_CQ_EVENT = NativeDowncalls.GET_CQ_EVENT.bindTo(
            rdma_h.ibv_get_cq_event$address());
    private static final CheckedCall DESTROY_COMP_CHANNEL = CheckedCall.bind("ibv_destroy_comp_channel",
            rdma_h.ibv_destroy_comp_channel$address(), rdma_h.ibv_destroy_comp_channel$descriptor());

    private final NativeContext context;
    private final MemorySegment channel;
    private final ReentrantLock waiting = new ReentrantLock();
    private final EventDescriptor descriptor;
    private final MemorySegment cqOut;
    private final MemorySegment cqContextOut;
    /** The CQs created on this channel, to map an event's CQ address to its handle; copy-on-write. */
    private volatile NativeCq[] cqs = new NativeCq[0];
    /** Set by {@link #shutdown()}: waits end, each within one poll slice. */
    private volatile boolean shutdown;

    NativeChannel(NativeContext context, MemorySegment channel) {
        this.context = context;
        this.channel = channel;
        int fd = ibv_comp_channel.fd(channel);
        Libc.makeNonBlocking(fd, "the completion channel fd of " + context.deviceName());
        // freed with this object: a waiter still inside a call keeps it reachable
        Arena arena = Arena.ofAuto();
        this.descriptor = new EventDescriptor(fd, arena);
        this.cqOut = arena.allocate(ValueLayout.ADDRESS);
        this.cqContextOut = arena.allocate(ValueLayout.ADDRESS);
        context.census().created(ResourceKind.COMPLETION_CHANNEL);
    }

    MemorySegment segment() {
        return channel;
    }

    synchronized void attach(NativeCq cq) {
        NativeCq[] grown = Arrays.copyOf(cqs, cqs.length + 1);
        grown[grown.length - 1] = cq;
        cqs = grown;
    }

    synchronized void detach(NativeCq cq) {
        cqs = Arrays.stream(cqs).filter(attached -> attached != cq).toArray(NativeCq[]::new);
    }

    @Override
    public @Nullable CqHandle awaitEvent(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        if (!waiting.tryLock(timeoutNanos, TimeUnit.NANOSECONDS)) {
            return null;
        }
        try {
            while (!shutdown) {
                int errno = descriptor.errnoOf(getCqEvent());
                if (errno == 0) {
                    return attached(cqOut.get(ValueLayout.ADDRESS, 0).address());
                }
                if (errno != Libc.EAGAIN) {
                    throw NativeErrors.failure("ibv_get_cq_event", errno, "completion channel of "
                            + context.deviceName());
                }
                // one poll slice at a time, so that a shutdown is seen within a slice
                long now = System.nanoTime();
                long remaining = deadline - now;
                boolean lastSlice = remaining <= EventDescriptor.SLICE_NANOS;
                if (!descriptor.awaitReadable(lastSlice ? deadline : now + EventDescriptor.SLICE_NANOS,
                        "ibv_get_cq_event") && lastSlice) {
                    return null;
                }
            }
            return null;
        } finally {
            waiting.unlock();
        }
    }

    private int getCqEvent() {
        try {
            return (int) GET_CQ_EVENT.invokeExact(descriptor.callState(), channel, cqOut, cqContextOut);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("downcall ibv_get_cq_event failed", e);
        }
    }

    /** The handle of the CQ at {@code address}, which libibverbs only signals on a channel it was created with. */
    private NativeCq attached(long address) {
        for (NativeCq cq : cqs) {
            if (cq.segment().address() == address) {
                return cq;
            }
        }
        throw new IllegalStateException("ibv_get_cq_event returned CQ 0x" + Long.toHexString(address)
                + ", which was not created on this completion channel of " + context.deviceName());
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public void destroy() {
        DESTROY_COMP_CHANNEL.status("a CQ still uses it", channel);
        context.census().destroyed(ResourceKind.COMPLETION_CHANNEL);
    }
}
