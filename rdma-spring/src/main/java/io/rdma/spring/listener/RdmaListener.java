package io.rdma.spring.listener;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method as the receive handler of a declared queue pair, as
 * {@code @KafkaListener} does for a topic. The queue pair's receive queue is kept filled with
 * buffers from its memory pool; each message received is handed to the method, on one of the
 * listener's worker virtual threads (or, with {@link #onPollerThread()}, on the completion
 * poller's thread itself), as {@code byte[]} (the payload), {@link ReceivedMessage} (payload and
 * immediate data), or {@link ReceivedBuffer}: the payload in the receive buffer it arrived in,
 * without a copy, lent to the invocation until it is released (see {@link ReceivedBuffer} for its
 * lifetime). A method returning {@code byte[]} replies: the bytes are sent back on the same queue
 * pair, with the request's immediate data when it had some, so a peer can match replies to
 * requests.
 *
 * <p>Name either a declared queue pair, or a listener under {@code rdma.connections.listeners}
 * whose peers get queue pairs from a prototype: the method then handles the receives of every
 * peer the listener accepts, and its reply goes back to the peer that sent the request
 * ({@link ReceivedMessage#queuePair()} names that peer's queue pair, {@code <listener>#<n>},
 * for sending to it later through the {@code RdmaTemplate}).
 *
 * <p>Replies are sent as {@code RdmaTemplate} operations are: when the queue pair's send queue is
 * full they wait for room, up to its {@code send-timeout}. Nothing fails silently: an exception
 * the method throws, and a reply that could not be sent ({@link RdmaReplyException}), go to the
 * listener's {@link #errorHandler()}, which by default logs them at ERROR with the queue pair.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective // the processor invokes the method through reflection: AOT registers every annotated bean method for it
public @interface RdmaListener {

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
     * method returns and its reply, if any, is sent or has failed. The listener runs at most this
     * many worker virtual threads, each taking the next message as it finishes one. 0, the
     * default, sets no limit: a message that finds no worker idle gets a new one. Messages
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
     * Name of a bean implementing {@link RdmaListenerErrorHandler}, called with the message when
     * the method throws or its reply cannot be sent. Unset, such failures are logged at ERROR
     * with the queue pair.
     */
    String errorHandler() default "";
}
