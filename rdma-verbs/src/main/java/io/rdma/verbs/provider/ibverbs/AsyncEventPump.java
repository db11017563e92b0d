package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.provider.ibverbs.generated.ibv_async_event;
import io.rdma.verbs.provider.ibverbs.generated.ibv_context;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.spi.AsyncEventSink;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * One daemon thread per context that waits on the context's async event file descriptor
 * (non-blocking, with {@code poll(2)} and a timeout, so it can be stopped), reads each event
 * with {@code ibv_get_async_event}, hands it to the sink and acknowledges it at once, so a
 * later destroy of the object never waits for an acknowledgement. A wake-up without an event
 * allocates nothing: the poll and errno memory and the event are allocated once.
 */
final class AsyncEventPump {

    private static final System.Logger LOG = System.getLogger(AsyncEventPump.class.getName());
    private static final long WAIT_NANOS = 100_000_000L;
    /** {@code ibv_get_async_event(context, &event)}, errno captured; exact types for {@code invokeExact}. */
    private static final MethodHandle GET_ASYNC_EVENT = NativeDowncalls.GET_ASYNC_EVENT.bindTo(
            rdma_h.ibv_get_async_event$address());

    private final NativeContext context;
    private final AsyncEventSink sink;
    private final int fd;
    private final Thread thread;
    private volatile boolean running = true;

    private AsyncEventPump(NativeContext context, AsyncEventSink sink) {
        this.context = context;
        this.sink = sink;
        this.fd = ibv_context.async_fd(context.segment());
        Libc.makeNonBlocking(fd, "the async event fd of " + context.deviceName());
        this.thread = Thread.ofPlatform().daemon().name("rdma-async-" + context.deviceName()).unstarted(this::run);
    }

    static AsyncEventPump start(NativeContext context, AsyncEventSink sink) {
        AsyncEventPump pump = new AsyncEventPump(context, sink);
        pump.thread.start();
        return pump;
    }

    void stop() {
        running = false;
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try (Arena arena = Arena.ofConfined()) {
            EventDescriptor descriptor = new EventDescriptor(fd, arena);
            MemorySegment event = ibv_async_event.allocate(arena);
            while (running) {
                if (!descriptor.awaitReadable(System.nanoTime() + WAIT_NANOS, "ibv_get_async_event")) {
                    continue;
                }
                int errno = descriptor.errnoOf(getAsyncEvent(descriptor, event));
                if (errno == Libc.EAGAIN) {
                    continue;
                }
                if (errno != 0) {
                    LOG.log(System.Logger.Level.WARNING, "ibv_get_async_event on " + context.deviceName()
                            + " failed with errno " + errno + "; no more async events from this device");
                    return;
                }
                deliver(event);
                rdma_h.ibv_ack_async_event(event);
            }
        } catch (InterruptedException e) {
            // stop() interrupts to end the wait early
        }
    }

    private int getAsyncEvent(EventDescriptor descriptor, MemorySegment event) {
        try {
            return (int) GET_ASYNC_EVENT.invokeExact(descriptor.callState(), context.segment(), event);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("downcall ibv_get_async_event failed", e);
        }
    }

    private void deliver(MemorySegment event) {
        int rawType = ibv_async_event.event_type(event);
        if (rawType < 0 || rawType >= AsyncEventType.values().length) {
            LOG.log(System.Logger.Level.INFO, "async event type " + rawType + " on " + context.deviceName()
                    + " is newer than this API; ignored");
            return;
        }
        AsyncEventType type = AsyncEventType.of(rawType);
        MemorySegment element = ibv_async_event.element(event);
        int port = 0;
        Object handle = null;
        if (type.isPortEvent() || type == AsyncEventType.DEVICE_FATAL) {
            port = ibv_async_event.element.port_num(element);
        } else {
            // cq, qp, srq and wq share the union; the address alone finds the handle
            handle = context.handleAt(element.get(ValueLayout.ADDRESS, 0).address());
            if (type == AsyncEventType.CQ_ERR && handle instanceof NativeCq cq) {
                // before anyone hears of it, so a poll after the event fails as the man page says
                cq.overran();
            }
        }
        try {
            sink.deliver(type, handle, port);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "async event sink failed on " + type, e);
        }
    }
}
