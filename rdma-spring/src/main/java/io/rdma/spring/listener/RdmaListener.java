package io.rdma.spring.listener;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method as the receive handler of a channel, as {@code @KafkaListener} does for a
 * topic. The channel's receive queue is kept filled with buffers from its memory pool; each message
 * received is handed to the method on a thread that does not poll while the method runs: the
 * completion poller's thread that took the message, once it has handed the polling to another
 * thread of its CQ, so that no thread is woken before the method runs, or else one of the
 * listener's workers (or, with {@link #onPollerThread()}, the completion poller's thread itself,
 * polling nothing meanwhile). The method takes
 * <ul>
 * <li>{@code byte[]} (the payload), {@link ReceivedMessage} (payload, channel and immediate data) or
 * {@link ReceivedBuffer} (the payload in the receive buffer it arrived in, without a copy, lent to
 * the invocation until it is released): the direct forms, with nothing converted; or</li>
 * <li>typed parameters ({@link TypedListenerMethod}): the payload converted to any type
 * ({@code @Payload}, or a parameter without annotation), the receive's {@link RdmaHeaders} as
 * {@code @Header} parameters, a {@code Message<T>}.</li>
 * </ul>
 * A method that returns a value replies: the value ({@code byte[]}, or converted) is sent back on
 * the channel the message came in on, as the reply to a request of
 * {@code RdmaOperations.sendAndReceive} (correlated, see {@code RdmaWireFormat}), or with the
 * message's own immediate data when it had some. A method that throws on a request answers it with
 * an error reply, which fails the requester's future with the exception's type and message.
 *
 * <p>Name either a declared queue pair, a listener under {@code rdma.connections.listeners}
 * whose peers get queue pairs from a prototype (the method then handles the messages of every
 * peer the listener accepts, {@link ReceivedMessage#queuePair()} naming the peer's channel,
 * {@code <listener>#<n>}), or a service connection. A name that is not declared fails the start
 * with the nearest declared name and the list of all.
 *
 * <p>Each method is an {@link RdmaListenerContainer} in the {@link RdmaListenerEndpointRegistry},
 * by {@link #id()}: it starts invoking once the application context has refreshed, can be stopped,
 * started, paused and resumed, and is stopped, waiting for the invocations in flight, when the
 * context begins to close. Messages that arrive while it does not run wait, keeping their buffers.
 *
 * <p>Replies are sent as template operations are: when the channel's send queue is full they wait
 * for room, up to its {@code send-timeout}. Nothing fails silently: an exception the method throws
 * is retried after the {@link #errorHandler()}'s back-off, if it has one, and then handed to it,
 * as is a reply that could not be sent ({@link RdmaReplyException}); without one they are logged at
 * ERROR with the channel.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective // the processor invokes the method through reflection: AOT registers every annotated bean method for it
public @interface RdmaListener {

    /**
     * The id of the listener's {@link RdmaListenerContainer} in the
     * {@link RdmaListenerEndpointRegistry}, through which it is stopped, started, paused and
     * resumed; unique in the context. Unset: the bean's class and the method,
     * {@code com.example.Greeter.greet}.
     */
    String id() default "";

    /**
     * Whether the container starts with the application (once the context has refreshed); false
     * leaves it stopped, its messages waiting, until it is started through the registry.
     */
    boolean autoStartup() default true;

    /** Name of the declared queue pair whose receives this method handles. */
    String queuePair() default "";

    /** Name of a listener (with a queue pair prototype) whose accepted peers' receives this method handles. */
    String connectionListener() default "";

    /**
     * Name of an outbound connection to a discovered service ({@code rdma.connections.outbound.<name>}
     * with {@code service}) whose instances' receives this method handles: the queue pair of each
     * instance it connects, for as long as it is connected, or, for a connection to one instance
     * at a time, its declared queue pair (as {@link #queuePair()} naming it). Exactly one of
     * {@link #queuePair()}, {@link #connectionListener()} and this is set.
     */
    String serviceConnection() default "";

    /**
     * How many invocations of the method may be in flight at once, across every queue pair it
     * listens on (all peers of a connection listener); an invocation is in flight until the
     * method returns and its reply, if any, is sent or has failed. At most this many run at once,
     * on the threads that took their messages or the listener's workers, each taking the next
     * waiting message as it finishes one. 0, the default, sets no limit: a message that finds
     * no thread to take it gets a new worker. Messages
     * beyond the limit wait, in the order they arrived, and keep their receive buffers: the
     * receive queue is refilled only as they start, so a peer that goes on sending finds it
     * empty, gets RNR NAKs and waits, and its own send queue fills - back-pressure, not loss.
     * 1 handles messages one at a time, in the order they arrived.
     */
    int concurrency() default 0;

    /**
     * Runs the method on the thread of the completion poller that took the receive, as it takes
     * it, without handing the message to a worker: the fastest path, for methods that never
     * block (no I/O, no waiting on locks or futures, no sleeping), as on an event loop. A method
     * that blocks here stops every completion of its CQ, its own replies' included. The message
     * is done when the method returns (a {@link ReceivedBuffer} is released then, unless
     * retained); a reply is posted without waiting for its completion, and one that fails goes
     * to the error handler, on a poller thread too. The method is called in the order messages
     * arrive on each CQ, and concurrently when the queue pairs it listens on complete into CQs of
     * different pollers.
     * {@link #concurrency()} must stay 0: with no hand-over there is nothing to limit.
     */
    boolean onPollerThread() default false;

    /**
     * Name of a bean implementing {@link RdmaListenerErrorHandler}: its back-off says how often the
     * method is tried again when it throws (see {@link RetryingErrorHandler}), and it is called with
     * the message when retries could not fix it or its reply cannot be sent. Unset, such failures
     * are logged at ERROR with the channel.
     */
    String errorHandler() default "";
}
