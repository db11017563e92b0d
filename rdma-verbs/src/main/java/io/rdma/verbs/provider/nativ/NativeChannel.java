package io.rdma.verbs.provider.nativ;

import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.nativ.generated.ibv_comp_channel;
import io.rdma.verbs.provider.nativ.generated.rdma_h;
import io.rdma.verbs.spi.ChannelHandle;
import io.rdma.verbs.spi.CqHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_comp_channel}. Its file descriptor is made non-blocking and waited on
 * with {@code poll(2)}, which gives {@code ibv_get_cq_event} the timeout it lacks; a waiter
 * that loses the race for an event sees EAGAIN and waits again.
 */
final class NativeChannel implements ChannelHandle {

    private static final CheckedCall GET_CQ_EVENT = CheckedCall.bind("ibv_get_cq_event",
            rdma_h.ibv_get_cq_event$address(), rdma_h.ibv_get_cq_event$descriptor());
    private static final CheckedCall DESTROY_COMP_CHANNEL = CheckedCall.bind("ibv_destroy_comp_channel",
            rdma_h.ibv_destroy_comp_channel$address(), rdma_h.ibv_destroy_comp_channel$descriptor());

    private final NativeContext context;
    private final MemorySegment channel;
    private final int fd;

    NativeChannel(NativeContext context, MemorySegment channel) {
        this.context = context;
        this.channel = channel;
        this.fd = ibv_comp_channel.fd(channel);
        Libc.makeNonBlocking(fd, "the completion channel fd of " + context.deviceName());
        context.census().created(ResourceKind.COMPLETION_CHANNEL);
    }

    MemorySegment segment() {
        return channel;
    }

    @Override
    public CqHandle awaitEvent(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cq = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment cqContext = arena.allocate(ValueLayout.ADDRESS);
            while (true) {
                if (!Libc.awaitReadable(fd, deadline - System.nanoTime(), "ibv_get_cq_event")) {
                    return null;
                }
                int errno = GET_CQ_EVENT.errnoOf(channel, cq, cqContext);
                if (errno == Libc.EAGAIN) {
                    continue;
                }
                if (errno != 0) {
                    throw NativeErrors.failure("ibv_get_cq_event", errno, "completion channel of "
                            + context.deviceName());
                }
                return (CqHandle) context.handleAt(cq.get(ValueLayout.ADDRESS, 0).address());
            }
        }
    }

    @Override
    public void destroy() {
        DESTROY_COMP_CHANNEL.status("a CQ still uses it", channel);
        context.census().destroyed(ResourceKind.COMPLETION_CHANNEL);
    }
}
