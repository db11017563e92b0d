package io.rdma.boot.autoconfigure.listener;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the receive handler of a declared queue pair, as
 * {@code @KafkaListener} does for a topic. The queue pair's receive queue is kept filled with
 * buffers from its memory pool; each message received is handed to the method, on a virtual
 * thread, as {@code byte[]} (the payload) or {@link ReceivedMessage} (payload and immediate
 * data). A method returning {@code byte[]} replies: the bytes are sent back on the same queue
 * pair, with the request's immediate data when it had some, so a peer can match replies to
 * requests.
 *
 * <p>Name either a declared queue pair, or a listener under {@code rdma.connections.listeners}
 * whose peers get queue pairs from a template: the method then handles the receives of every
 * peer the listener accepts, and its reply goes back to the peer that sent the request
 * ({@link ReceivedMessage#queuePair()} names that peer's queue pair, {@code <listener>#<n>},
 * for sending to it later through the {@code RdmaTemplate}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RdmaListener {

    /** Name of the declared queue pair whose receives this method handles. */
    String queuePair() default "";

    /** Name of a listener (with a queue pair template) whose accepted peers' receives this method handles. */
    String connectionListener() default "";
}
