package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.ibverbs.generated.ibv_context;
import io.rdma.verbs.provider.ibverbs.generated.rdma_addr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_cm_event;
import io.rdma.verbs.provider.ibverbs.generated.rdma_cm_id;
import io.rdma.verbs.provider.ibverbs.generated.rdma_conn_param;
import io.rdma.verbs.provider.ibverbs.generated.rdma_event_channel;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.provider.ibverbs.generated.rdma_route;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * An {@code rdma_cm_id} with an event channel of its own, so that waiting for one id's
 * events never consumes another's. The channel's descriptor is non-blocking and waited on
 * with {@code poll(2)}, which gives every rdma_cm wait a timeout.
 */
final class CmId {

    private static final CheckedCall CREATE_EVENT_CHANNEL = CheckedCall.bind("rdma_create_event_channel",
            rdma_h.rdma_create_event_channel$address(), rdma_h.rdma_create_event_channel$descriptor());
    private static final CheckedCall CREATE_ID = CheckedCall.bind("rdma_create_id",
            rdma_h.rdma_create_id$address(), rdma_h.rdma_create_id$descriptor());
    private static final CheckedCall MIGRATE_ID = CheckedCall.bind("rdma_migrate_id",
            rdma_h.rdma_migrate_id$address(), rdma_h.rdma_migrate_id$descriptor());
    private static final CheckedCall GET_CM_EVENT = CheckedCall.bind("rdma_get_cm_event",
            rdma_h.rdma_get_cm_event$address(), rdma_h.rdma_get_cm_event$descriptor());
    private static final CheckedCall DESTROY_ID = CheckedCall.bind("rdma_destroy_id",
            rdma_h.rdma_destroy_id$address(), rdma_h.rdma_destroy_id$descriptor());

    /** One event as read from the channel, copied out before it is acknowledged. */
    record Event(int type, int status, MemorySegment id, byte[] privateData) {

        String name() {
            return rdma_h.rdma_event_str(type).reinterpret(Long.MAX_VALUE).getString(0);
        }
    }

    private final MemorySegment channel;
    private final MemorySegment id;

    private CmId(MemorySegment channel, MemorySegment id) {
        this.channel = channel;
        this.id = id.reinterpret(rdma_cm_id.sizeof());
    }

    private static MemorySegment newChannel() {
        MemorySegment channel = CREATE_EVENT_CHANNEL.pointer("is rdma_ucm loaded?")
                .reinterpret(rdma_event_channel.sizeof());
        Libc.makeNonBlocking(rdma_event_channel.fd(channel), "an rdma_cm event channel");
        return channel;
    }

    /** {@code rdma_create_id} for RDMA_PS_TCP (reliable connections) on a new channel. */
    static CmId create() {
        MemorySegment channel = newChannel();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment idOut = arena.allocate(ValueLayout.ADDRESS);
            CREATE_ID.status(null, channel, idOut, MemorySegment.NULL, rdma_h.RDMA_PS_TCP());
            return new CmId(channel, idOut.get(ValueLayout.ADDRESS, 0));
        } catch (RuntimeException e) {
            rdma_h.rdma_destroy_event_channel(channel);
            throw e;
        }
    }

    /** Takes the id a connection request created over onto a channel of its own ({@code rdma_migrate_id}). */
    static CmId adopt(MemorySegment requestId) {
        MemorySegment channel = newChannel();
        try {
            MIGRATE_ID.status(null, requestId, channel);
            return new CmId(channel, requestId);
        } catch (RuntimeException e) {
            rdma_h.rdma_destroy_event_channel(channel);
            throw e;
        }
    }

    MemorySegment segment() {
        return id;
    }

    /** The device the id is bound to, or null before address resolution binds it. */
    @Nullable String deviceName() {
        MemorySegment verbs = rdma_cm_id.verbs(id);
        if (verbs.address() == 0) {
            return null;
        }
        return DeviceList.name(ibv_context.device(verbs.reinterpret(ibv_context.sizeof())));
    }

    /** The peer's address: IPv4 or IPv6, since every id here is bound to or resolved from an IP address. */
    InetSocketAddress destinationAddress() {
        return Objects.requireNonNull(
                SocketAddresses.fromNative(rdma_addr.dst_storage(rdma_route.addr(rdma_cm_id.route(id)))),
                "rdma_cm_id's destination address is neither AF_INET nor AF_INET6");
    }

    /** The next event, or null when {@code deadline} (System.nanoTime) passes first. */
    @Nullable Event next(long deadline) throws InterruptedException {
        try (Arena arena = Arena.ofConfined()) {
            EventDescriptor descriptor = new EventDescriptor(rdma_event_channel.fd(channel), arena);
            MemorySegment eventOut = arena.allocate(ValueLayout.ADDRESS);
            while (true) {
                if (!descriptor.awaitReadable(deadline, "rdma_get_cm_event")) {
                    return null;
                }
                int errno = GET_CM_EVENT.errnoOf(channel, eventOut);
                if (errno == Libc.EAGAIN) {
                    continue;
                }
                if (errno != 0) {
                    throw NativeErrors.failure("rdma_get_cm_event", errno, null);
                }
                MemorySegment event = eventOut.get(ValueLayout.ADDRESS, 0).reinterpret(rdma_cm_event.sizeof());
                MemorySegment conn = rdma_cm_event.param.conn(rdma_cm_event.param(event));
                int length = Byte.toUnsignedInt(rdma_conn_param.private_data_len(conn));
                MemorySegment data = rdma_conn_param.private_data(conn);
                byte[] privateData = data.address() == 0 || length == 0 ? new byte[0]
                        : data.reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
                Event copy = new Event(rdma_cm_event.event(event), rdma_cm_event.status(event),
                        rdma_cm_event.id(event), privateData);
                rdma_h.rdma_ack_cm_event(event);
                return copy;
            }
        }
    }

    /**
     * Waits for {@code expected}; any other event is the failure of {@code verb}: an address or
     * route error, a rejection (ECONNREFUSED), an unreachable peer, or the deadline (ETIMEDOUT).
     */
    Event await(int expected, String verb, long deadline, String detail) throws InterruptedException {
        Event event = next(deadline);
        if (event == null) {
            throw new VerbsException(verb, Errno.ETIMEDOUT, detail + ": no " + eventName(expected) + " in time",
                    NativeErrors.adviceFor(verb, Errno.ETIMEDOUT));
        }
        if (event.type() == expected) {
            return event;
        }
        int errno;
        if (event.type() == rdma_h.RDMA_CM_EVENT_REJECTED()) {
            errno = Errno.ECONNREFUSED.code();
        } else if (event.type() == rdma_h.RDMA_CM_EVENT_UNREACHABLE()) {
            errno = event.status() < 0 ? -event.status() : Errno.EHOSTUNREACH.code();
        } else if (event.type() == rdma_h.RDMA_CM_EVENT_DEVICE_REMOVAL()) {
            errno = Errno.ENODEV.code();
        } else {
            errno = event.status() != 0 ? Math.abs(event.status()) : Errno.EIO.code();
        }
        throw NativeErrors.failure(verb, errno, detail + ": " + event.name() + " (status " + event.status()
                + ") instead of " + eventName(expected));
    }

    private static String eventName(int type) {
        return rdma_h.rdma_event_str(type).reinterpret(Long.MAX_VALUE).getString(0);
    }

    /** {@code rdma_destroy_id}, then its channel. */
    void destroy() {
        try {
            DESTROY_ID.status(null, id);
        } finally {
            rdma_h.rdma_destroy_event_channel(channel);
        }
    }
}
