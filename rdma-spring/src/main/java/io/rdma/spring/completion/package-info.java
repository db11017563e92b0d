/**
 * Completion delivery: a poller per declared completion queue, whose threads take turns polling
 * it (one at a time; a handler may have the polling thread run a task after handing the polling
 * on, {@link io.rdma.spring.completion.PollerHandOff}), and the router that hands each completion
 * to the handler registered for its queue pair and queue.
 */
@NullMarked
package io.rdma.spring.completion;

import org.jspecify.annotations.NullMarked;
