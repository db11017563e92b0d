/**
 * {@link io.rdma.spring.listener.RdmaListener} methods: the post-processor that finds them, the
 * containers that keep their queue pairs' receive queues filled, and the invokers that run them
 * within their concurrency and send their replies.
 */
@NullMarked
package io.rdma.spring.listener;

import org.jspecify.annotations.NullMarked;
