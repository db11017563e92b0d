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
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RdmaListener {

    /** Name of the queue pair whose receives this method handles. */
    String queuePair();
}
