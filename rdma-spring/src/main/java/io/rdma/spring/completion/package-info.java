/**
 * Completion delivery: a poller thread per declared completion queue, and the router that hands
 * each completion to the handler registered for its queue pair and queue.
 */
@NullMarked
package io.rdma.spring.completion;

import org.jspecify.annotations.NullMarked;
