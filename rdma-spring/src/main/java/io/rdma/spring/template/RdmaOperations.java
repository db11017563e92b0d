package io.rdma.spring.template;

import io.rdma.verbs.api.RemoteBuffer;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What an application does on channels, by name (a declared queue pair, {@code <listener>#<n>}
 * for an accepted peer, {@code <connection>@<instance>} for an instance of a discovered service,
 * or what {@code RdmaConnections.group(...)} picks): sends, request/reply, one-sided RDMA writes,
 * reads and atomics. Implemented by {@link RdmaTemplate}; program and mock against this.
 *
 * <p>Every method but {@link #sendAndForget} returns at once with a future. An operation that
 * finds its send queue full waits for room (up to its channel's {@code send-timeout}); a caller
 * that gives up on it while it waits ({@code cancel}, {@code orTimeout},
 * {@code completeExceptionally}) withdraws it: it is never posted afterwards. Once posted, an
 * operation completes with its outcome, and cancelling it returns false: the caller knows it may
 * have run. (Waiting with {@code get(timeout)} withdraws nothing; cancel the future when that
 * times out.)
 *
 * <p>An unknown channel name throws {@link io.rdma.spring.naming.UnknownRdmaNameException} (an
 * {@code IllegalArgumentException}) at the call, naming the nearest channel and all there are; one
 * made while the application starts fails the start with that analysis. A name of a peer's or an
 * instance's channel ({@code <listener>#<n>}, {@code <connection>@<instance>}) that is not there
 * now is no mistake but a peer or an instance that left, or has not come yet: the future fails
 * with {@link RdmaChannelDownException}, state {@code GONE}, as when it leaves during the call.
 */
public interface RdmaOperations {

    CompletableFuture<Void> send(String channel, byte[] payload);

    /**
     * A send with immediate data: {@code immediateData} must fit the 30 bits the request/reply
     * wire format leaves the application ({@link RdmaWireFormat}).
     */
    CompletableFuture<Void> send(String channel, byte[] payload, int immediateData);

    /**
     * Sends {@code length} bytes that {@code writer} writes straight into the registered buffer
     * the send goes out from, leased from the channel's pool: no {@code byte[]}, no copy. The
     * writer gets the whole buffer, whose first {@code length} bytes are sent, when the send is
     * posted: at once, or, when the send queue is full, later, on the thread that finds room (a
     * completion poller, or the send-timeout's timer). So it must only fill the segment, and not
     * keep it: the buffer goes back to the pool when the send completes. What it throws fails the
     * future.
     */
    CompletableFuture<Void> send(String channel, int length, Consumer<MemorySegment> writer);

    /** {@link #send(String, int, Consumer)} with immediate data (30 bits, as {@link #send(String, byte[], int)}). */
    CompletableFuture<Void> send(String channel, int length, Consumer<MemorySegment> writer, int immediateData);

    /**
     * Sends as {@link #send(String, int, Consumer)} does, without a future: for a stream of
     * messages whose rate counts and whose losses the receiver notices (as Netty's
     * {@code voidPromise} and Aeron's {@code offer} are). On a channel whose send queue has room
     * the call allocates nothing: the object that carries the send is used again once it is
     * settled. (On a device without immediate data, iWARP, the writer gets a slice past the
     * in-band header, {@link RdmaWireFormat}: one segment per send.) It waits for room as other
     * operations do, up to the channel's {@code send-timeout}; nobody holds it to give up on it,
     * so it is always posted. What the call can tell at once it
     * throws: an unknown channel ({@link io.rdma.spring.naming.UnknownRdmaNameException}), a
     * channel gone or a peer not connected ({@link RdmaChannelDownException}), a payload larger
     * than a buffer ({@link PayloadTooLargeException}). What happens after it returns (an error
     * completion, the send-timeout passing while it waits, its channel gone) goes to the
     * template's {@link ForgottenSendFailureHandler}, and is counted. Not observed.
     */
    void sendAndForget(String channel, int length, Consumer<MemorySegment> writer);

    /** {@link #sendAndForget(String, int, Consumer)} with immediate data (30 bits, as {@link #send(String, byte[], int)}). */
    void sendAndForget(String channel, int length, Consumer<MemorySegment> writer, int immediateData);

    /**
     * Sends {@code request} and yields the reply of the listener that answers it on the other side,
     * within the template's default reply timeout. See {@link #sendAndReceive(String, byte[], Duration)}.
     */
    CompletableFuture<byte[]> sendAndReceive(String channel, byte[] request);

    /**
     * Sends {@code request} and yields the reply: the value the peer's {@code @RdmaListener}
     * method returned, correlated through the immediate data ({@link RdmaWireFormat}). Fails with
     * {@link RdmaRemoteException} when that method threw, {@link RdmaReplyTimeoutException} when no
     * reply came within {@code timeout} (a later reply is dropped and counted), and
     * {@link RdmaChannelDownException} at once when the channel is down at the call or goes down
     * while the reply is awaited. The request waits for send-queue room as other operations do.
     */
    CompletableFuture<byte[]> sendAndReceive(String channel, byte[] request, Duration timeout);

    /**
     * Sends {@code payload} converted to bytes by the template's message conversion ({@code byte[]}
     * as it is, a {@code String} as UTF-8, any other object as JSON).
     */
    CompletableFuture<Void> convertAndSend(String channel, Object payload);

    /**
     * {@link #sendAndReceive(String, byte[])} of {@code request} converted to bytes, whose reply is
     * converted to {@code replyType}; a reply that does not convert fails the future with a
     * {@code PayloadConversionException} naming the type.
     */
    <R> CompletableFuture<R> convertSendAndReceive(String channel, Object request, Class<R> replyType);

    /** {@link #convertSendAndReceive(String, Object, Class)} with a reply timeout of its own. */
    <R> CompletableFuture<R> convertSendAndReceive(String channel, Object request, Class<R> replyType,
                                                   Duration timeout);

    CompletableFuture<Void> write(String channel, byte[] data, RemoteBuffer target);

    /** An RDMA write with immediate data: all 32 bits are the application's. */
    CompletableFuture<Void> write(String channel, byte[] data, RemoteBuffer target, int immediateData);

    CompletableFuture<byte[]> read(String channel, RemoteBuffer source, int length);

    /** Atomically replaces the remote 8 bytes with {@code desired} if they equal {@code expected}; yields the old value. */
    CompletableFuture<Long> compareAndSwap(String channel, RemoteBuffer target, long expected, long desired);

    /** Atomically adds {@code delta} to the remote 8 bytes; yields the old value. */
    CompletableFuture<Long> fetchAndAdd(String channel, RemoteBuffer target, long delta);
}
