package io.rdma.spring.template;

import io.rdma.spring.channel.ChannelFollower;
import io.rdma.spring.channel.ChannelReplies;
import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionRouter;
import io.rdma.spring.convert.RdmaMessageConversion;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.RemoteBuffer;
import io.rdma.verbs.api.SendOpcode;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import org.jspecify.annotations.Nullable;

/**
 * The data path without work requests ({@link RdmaOperations}): send, request/reply, RDMA write
 * and read, compare-and-swap and fetch-and-add on a channel by name, with immediate data where the
 * verb carries it. Payloads are copied into a buffer leased from the channel's memory pool, or
 * written straight into it ({@link #send(String, int, Consumer)}), and the buffer goes back when
 * the operation completes; results arrive as {@link CompletableFuture}s completed on the CQ's
 * poller thread (chain with {@code *Async} to leave it). Failures complete the future with an
 * {@link RdmaOperationException} (completion status), a {@code VerbsException} (post refused,
 * or no free buffer in the pool) or a {@link SendQueueFullException}.
 *
 * <p>A full send queue is back-pressure, not an error: an operation that finds no room waits,
 * without holding a thread, and is posted, in the order operations were made on that channel,
 * as soon as completions free slots. Only when its channel's {@code send-timeout} (5 s unless
 * configured) passes first does it fail, with a {@link SendQueueFullException} naming the queue
 * pair, its send queue's depth and the property to raise; that future completes on a thread of
 * {@code CompletableFuture}'s default async pool. The methods never block.
 *
 * <p>The template looks channels up in {@link RdmaChannels} and follows them: when one goes down
 * the requests awaiting replies on it fail at once; when one is gone, what is in flight or
 * waiting on it fails as flushed and the template forgets it.
 *
 * <p>Each operation is observed ({@link RdmaTemplateObservation#OPERATION}) from when it is made
 * until its future completes, through the {@link ObservationRegistry} given; with
 * {@link ObservationRegistry#NOOP}, or a registry without handlers, nothing is observed and
 * nothing allocated for it.
 *
 * <p>This is the convenient path: it allocates a future per operation. A stream of sends that
 * needs no future per message uses {@link #sendAndForget}, which allocates nothing while the send
 * queue has room; other code that must not allocate posts reused work requests on the
 * {@link io.rdma.verbs.api.QueuePair} bean itself.
 */
public class RdmaTemplate implements RdmaOperations {

    /** The reply timeout of {@link #sendAndReceive(String, byte[])} unless {@link #setDefaultReplyTimeout set}. */
    public static final Duration DEFAULT_REPLY_TIMEOUT = Duration.ofSeconds(5);

    private final RdmaChannels channels;
    private final CompletionRouter router;
    private final ChannelReplies replies;
    private final ObservationRegistry observationRegistry;
    private final @Nullable RdmaTemplateObservationConvention observationConvention;
    private final Map<String, QueuePairOperations> operations = new ConcurrentHashMap<>();
    /** The channels whose replies {@link #replies} already hands to this template, by name. */
    private final Map<String, RdmaChannel> receivingReplies = new ConcurrentHashMap<>();
    private final LongAdder lateReplies = new LongAdder();
    private final LongAdder forgottenSendFailures = new LongAdder();
    private volatile ForgottenSendFailureHandler forgottenSendFailureHandler =
            LoggingForgottenSendFailureHandler.INSTANCE;
    private volatile Duration defaultReplyTimeout = DEFAULT_REPLY_TIMEOUT;
    private volatile RdmaMessageConversion conversion = new RdmaMessageConversion();

    /**
     * Sends on the channels of {@code channels}, whose replies {@code replies} receives; observes
     * operations through {@code observationRegistry}, named and tagged by
     * {@code observationConvention}, or when that is null by the registry's global convention or
     * {@link DefaultRdmaTemplateObservationConvention}.
     */
    public RdmaTemplate(RdmaChannels channels, CompletionRouter router, ChannelReplies replies,
                        ObservationRegistry observationRegistry,
                        @Nullable RdmaTemplateObservationConvention observationConvention) {
        this.channels = channels;
        this.router = router;
        this.replies = replies;
        this.observationRegistry = observationRegistry;
        this.observationConvention = observationConvention;
        channels.followAll(new ChannelFollower() {
            @Override
            public void up(RdmaChannel channel) {
            }

            @Override
            public void down(RdmaChannel channel) {
                QueuePairOperations on = operations.get(channel.name());
                if (on != null) {
                    on.pendingRequests().failAll(downException(channel));
                }
            }

            @Override
            public void gone(RdmaChannel channel) {
                // the name may find the channel's successor already (RdmaChannels.renew): only this one's go
                QueuePairOperations on = operations.get(channel.name());
                receivingReplies.remove(channel.name(), channel);
                if (on != null && on.channel() == channel && operations.remove(channel.name(), on)) {
                    on.pendingRequests().failAll(downException(channel));
                    on.abandon();
                }
            }
        });
    }

    /** How long {@link #sendAndReceive(String, byte[])} waits for a reply. */
    public void setDefaultReplyTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a reply timeout must be positive, not " + timeout);
        }
        this.defaultReplyTimeout = timeout;
    }

    /** How {@code convertAndSend} and {@code convertSendAndReceive} turn objects into bytes and back. */
    public void setMessageConversion(RdmaMessageConversion conversion) {
        this.conversion = conversion;
    }

    /** Replies that came after their request was settled (timed out, given up, its channel down): dropped. */
    public long lateReplies() {
        return lateReplies.sum();
    }

    /** Who is told of a send of {@link #sendAndForget} that failed after its call returned; by default a WARN line. */
    public void setForgottenSendFailureHandler(ForgottenSendFailureHandler handler) {
        this.forgottenSendFailureHandler = handler;
    }

    /** Sends of {@link #sendAndForget} that failed after their call returned, each told to the handler. */
    public long forgottenSendFailures() {
        return forgottenSendFailures.sum();
    }

    @Override
    public CompletableFuture<Void> send(String channel, byte[] payload) {
        return post(channel, TemplateOperation.send(payload));
    }

    @Override
    public CompletableFuture<Void> send(String channel, byte[] payload, int immediateData) {
        return post(channel, TemplateOperation.sendWithImmediate(payload, applicationImmediate(immediateData)));
    }

    @Override
    public CompletableFuture<Void> send(String channel, int length, Consumer<MemorySegment> writer) {
        return post(channel, TemplateOperation.send(length, writer));
    }

    @Override
    public CompletableFuture<Void> send(String channel, int length, Consumer<MemorySegment> writer,
                                        int immediateData) {
        return post(channel, TemplateOperation.sendWithImmediate(length, writer, applicationImmediate(immediateData)));
    }

    @Override
    public void sendAndForget(String channel, int length, Consumer<MemorySegment> writer) {
        sendAndForget(channel, SendOpcode.SEND, length, writer, 0);
    }

    @Override
    public void sendAndForget(String channel, int length, Consumer<MemorySegment> writer, int immediateData) {
        sendAndForget(channel, SendOpcode.SEND_WITH_IMM, length, writer, applicationImmediate(immediateData));
    }

    private void sendAndForget(String channel, SendOpcode opcode, int length, Consumer<MemorySegment> writer,
                               int immediateData) {
        RdmaChannel target = channels.get(channel);
        if (target == null) {
            throw absence(channel, "RdmaTemplate.sendAndForget(channel, ...)");
        }
        if (target.state() == ChannelState.GONE) {
            throw downException(target);
        }
        operationsOf(target).sendAndForget(opcode, length, writer, immediateData);
    }

    /** A send of {@link #sendAndForget} on {@code channel} failed after its call: counted, and the handler told. */
    private void forgottenSendFailed(String channel, String operation, Throwable failure) {
        forgottenSendFailures.increment();
        forgottenSendFailureHandler.failed(channel, operation, failure);
    }

    @Override
    public CompletableFuture<byte[]> sendAndReceive(String channel, byte[] request) {
        return sendAndReceive(channel, request, defaultReplyTimeout);
    }

    @Override
    public CompletableFuture<byte[]> sendAndReceive(String channel, byte[] request, Duration timeout) {
        RdmaChannel target = channels.get(channel);
        if (target == null) {
            return CompletableFuture.failedFuture(absence(channel, "RdmaTemplate.sendAndReceive(channel, ...)"));
        }
        if (target.state() != ChannelState.UP) {
            return CompletableFuture.failedFuture(downException(target));
        }
        QueuePairOperations on = operationsOf(target);
        if (receivingReplies.get(channel) != target) {
            // two threads may both get here for a new channel: handing its replies over twice does no harm
            receivingReplies.put(channel, target);
            replies.receiveReplies(target, this::replied);
        }
        PendingRequests pending = on.pendingRequests();
        Request made = new Request(request, pending, timeout);
        if (!pending.register(made)) {
            return CompletableFuture.failedFuture(new IllegalStateException(PendingRequests.SLOTS
                    + " requests await replies on channel '" + channel + "' already; wait for some of them"));
        }
        return post(target, on, made);
    }

    @Override
    public CompletableFuture<Void> convertAndSend(String channel, Object payload) {
        return send(channel, conversion.toPayload(payload));
    }

    @Override
    public <R> CompletableFuture<R> convertSendAndReceive(String channel, Object request, Class<R> replyType) {
        return convertSendAndReceive(channel, request, replyType, defaultReplyTimeout);
    }

    @Override
    public <R> CompletableFuture<R> convertSendAndReceive(String channel, Object request, Class<R> replyType,
                                                          Duration timeout) {
        RdmaMessageConversion converting = conversion;
        return sendAndReceive(channel, converting.toPayload(request), timeout)
                .thenApply(reply -> converting.fromPayload(reply, replyType));
    }

    /**
     * Answers a message without immediate data received on {@code channel} with {@code payload}:
     * a send without immediate data. What {@code @RdmaListener} methods that return a value send.
     */
    public CompletableFuture<Void> reply(String channel, byte[] payload) {
        return post(channel, TemplateOperation.send(payload));
    }

    /**
     * Answers a message received on {@code channel} with immediate value
     * {@code requestImmediateData} with {@code payload}: a request of request/reply (kind
     * {@link RdmaWireFormat#REQUEST}) with a reply carrying its correlation id, a message with the
     * application's immediate data with that value unchanged. What {@code @RdmaListener} methods
     * that return a value send; also for code that answers requests it received otherwise.
     */
    public CompletableFuture<Void> reply(String channel, int requestImmediateData, byte[] payload) {
        return post(channel, TemplateOperation.sendWithImmediate(payload, replyImmediateData(requestImmediateData)));
    }

    /**
     * Answers a message received on {@code channel} as the two methods above do (with immediate
     * data when {@code requestHasImmediateData}), telling {@code outcome} how the reply ended
     * before its future completes, on every path: sent, failed, refused at the call, or its
     * channel gone. What listener containers send, so that a reply costs no callback chained to
     * its future.
     */
    public CompletableFuture<Void> reply(String channel, boolean requestHasImmediateData, int requestImmediateData,
                                         byte[] payload, ReplyOutcome outcome) {
        TemplateOperation reply = TemplateOperation.reply(payload, requestHasImmediateData,
                requestHasImmediateData ? replyImmediateData(requestImmediateData) : 0, outcome);
        RdmaChannel target = channels.get(channel);
        if (target == null) {
            reply.fail(new RdmaChannelDownException(channel, ChannelState.GONE, "it left before the reply was sent"));
            return reply.future();
        }
        return post(target, operationsOf(target), reply);
    }

    /** A reply's immediate data: the correlation id of a request, an application's value unchanged. */
    private static int replyImmediateData(int requestImmediateData) {
        return RdmaWireFormat.kind(requestImmediateData) == RdmaWireFormat.REQUEST
                ? RdmaWireFormat.immediateData(RdmaWireFormat.REPLY, RdmaWireFormat.correlationId(requestImmediateData))
                : requestImmediateData;
    }

    /**
     * Answers request {@code requestImmediateData} (of kind {@link RdmaWireFormat#REQUEST})
     * received on {@code channel} with {@code failure}: the requester's future fails with an
     * {@link RdmaRemoteException} naming its type and message.
     */
    public CompletableFuture<Void> replyWithError(String channel, int requestImmediateData, Throwable failure) {
        int immediate = RdmaWireFormat.immediateData(RdmaWireFormat.ERROR_REPLY,
                RdmaWireFormat.correlationId(requestImmediateData));
        String message = String.valueOf(failure.getMessage());
        return post(channel, TemplateOperation.sendWithImmediate(RdmaWireFormat.errorPayload(failure.getClass().getName(),
                message.length() > 1024 ? message.substring(0, 1024) : message), immediate));
    }

    @Override
    public CompletableFuture<Void> write(String channel, byte[] data, RemoteBuffer target) {
        return post(channel, TemplateOperation.write(data, target));
    }

    @Override
    public CompletableFuture<Void> write(String channel, byte[] data, RemoteBuffer target, int immediateData) {
        return post(channel, TemplateOperation.writeWithImmediate(data, target, immediateData));
    }

    @Override
    public CompletableFuture<byte[]> read(String channel, RemoteBuffer source, int length) {
        return post(channel, TemplateOperation.read(source, length));
    }

    @Override
    public CompletableFuture<Long> compareAndSwap(String channel, RemoteBuffer target, long expected, long desired) {
        return post(channel, TemplateOperation.atomic(SendOpcode.ATOMIC_CMP_AND_SWP, target, expected, desired));
    }

    @Override
    public CompletableFuture<Long> fetchAndAdd(String channel, RemoteBuffer target, long delta) {
        return post(channel, TemplateOperation.atomic(SendOpcode.ATOMIC_FETCH_AND_ADD, target, delta, 0));
    }

    /** A reply received on {@code channel}, for one of its pending requests or late. */
    private void replied(RdmaChannel channel, int immediateData, MemorySegment payload, int length) {
        QueuePairOperations on = operations.get(channel.name());
        if (on == null) {
            lateReplies.increment();
        } else {
            on.pendingRequests().replied(immediateData, payload, length);
        }
    }

    private static int applicationImmediate(int immediateData) {
        if ((immediateData & ~RdmaWireFormat.MAX_CORRELATION_ID) != 0) {
            throw new IllegalArgumentException("immediate data 0x" + Integer.toHexString(immediateData) + " of a send"
                    + " sets one of the top two bits, which say a request or reply (RdmaWireFormat); a send carries"
                    + " up to 0x3fffffff of the application's own (an RDMA write with immediate data all 32 bits)");
        }
        return immediateData;
    }

    private static RdmaChannelDownException downException(RdmaChannel channel) {
        return new RdmaChannelDownException(channel.name(), channel.state(), channel.lastFailure());
    }

    private <T extends @Nullable Object> CompletableFuture<T> post(String channel, TemplateOperation made) {
        RdmaChannel target = channels.get(channel);
        if (target == null) {
            return CompletableFuture.failedFuture(absence(channel, "an RdmaTemplate " + made.name() + " call"));
        }
        if (target.state() == ChannelState.GONE) {
            // renewed or closed since it was looked up: its queue pair is closed, and routes to it must not come back
            made.fail(downException(target));
            return made.future();
        }
        return post(target, operationsOf(target), made);
    }

    /**
     * The failure of {@code site}, which names {@code channel}, which is not there. A peer's or an
     * instance's channel comes and goes with its connection: that the peer left (or has not come
     * yet) is the call's failure, GONE, as when it leaves while the call waits; any other name is
     * a mistake in the code, thrown here, with the nearest name and those there are.
     */
    private RdmaChannelDownException absence(String channel, String site) {
        String connection = channels.connectionNamingChannel(channel);
        if (connection == null) {
            throw channels.unknown(channel, site);
        }
        return new RdmaChannelDownException(channel, ChannelState.GONE,
                "no peer or instance of '" + connection + "' is connected on it now (it left, or has not come yet)");
    }

    /** Posts {@code made} on {@code channel}, observed from now until its future completes. */
    private <T extends @Nullable Object> CompletableFuture<T> post(RdmaChannel channel, QueuePairOperations target,
                                                                  TemplateOperation made) {
        if (observationRegistry.isNoop()) {
            return target.post(made); // the hot path without observations: no context, no callback
        }
        RdmaOperationContext context = new RdmaOperationContext(channel.name(), channel.declaration(), made.opcode());
        Observation observation = RdmaTemplateObservation.OPERATION.start(observationConvention,
                DefaultRdmaTemplateObservationConvention.INSTANCE, () -> context, observationRegistry);
        CompletableFuture<T> result = target.post(made);
        if (!observation.isNoop()) {
            // On the thread that completes the future (a poller, the send-timeout's timer, or this one):
            // no scope is opened, as the operation runs on no thread of the caller's.
            result.whenComplete((value, failure) -> {
                context.complete(failure);
                if (failure != null && !(failure instanceof CancellationException)) {
                    observation.error(failure);
                }
                observation.stop();
            });
        }
        return result;
    }

    /**
     * The channel's operations, made when it is first used: its completions are routed to them
     * from then on. Those of an earlier channel of the same name (an instance that came back) are
     * replaced.
     */
    private QueuePairOperations operationsOf(RdmaChannel channel) {
        QueuePairOperations known = operations.get(channel.name());
        // Looked up first: computeIfAbsent's lambda would be allocated on every operation.
        if (known != null && known.channel() == channel) {
            return known;
        }
        return operations.compute(channel.name(), (name, earlier) -> {
            if (earlier != null && earlier.channel() == channel) {
                return earlier;
            }
            MemoryPool pool = channel.memoryPool();
            if (pool == null) {
                throw new IllegalStateException("queue pair '" + channel.declaration() + "' has no memory pool to"
                        + " lease buffers from; set its memory-pool property");
            }
            QueuePairOperations made = new QueuePairOperations(channel, pool, lateReplies, this::forgottenSendFailed);
            router.routeSends(channel.queuePair(), made::completed);
            return made;
        });
    }
}
