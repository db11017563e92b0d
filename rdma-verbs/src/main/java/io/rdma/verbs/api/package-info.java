/**
 * The verbs API: libibverbs and librdmacm as Java types, the same for every provider.
 *
 * <h2>Thread safety</h2>
 * <ul>
 *   <li><b>Resources</b> ({@link io.rdma.verbs.api.Verbs}, {@link io.rdma.verbs.api.Device} and
 *       every {@link io.rdma.verbs.api.VerbsResource}: device contexts, protection domains,
 *       memory regions and pools, completion queues and channels, queue pairs, shared receive
 *       queues, address handles, completion and flow counters, flows; and the connection
 *       manager's listeners and connections) may be shared between threads. Creating and
 *       destroying resources is serialized per device context, so a parent's close never
 *       races a child's creation. On a queue pair, posts to the send queue are serialized with
 *       each other and posts to the receive queue with each other, while a send and a receive
 *       may run at once (libibverbs' own locking, which applications also rely on); a
 *       completion queue is polled by one thread at a time. A post or poll racing the close of
 *       its resource either finishes before the close or fails with
 *       {@link io.rdma.verbs.api.ResourceClosedException}; it never reaches a destroyed handle.</li>
 *   <li><b>Work requests and completion batches</b> ({@link io.rdma.verbs.api.SendWorkRequest},
 *       {@link io.rdma.verbs.api.ReceiveWorkRequest}, {@link io.rdma.verbs.api.ScatterGatherList},
 *       {@link io.rdma.verbs.api.CompletionBatch} and the {@link io.rdma.verbs.api.WorkCompletion}s
 *       it holds) are mutable and made to be reused without allocating: each belongs to one
 *       thread at a time. A post copies what it needs before it returns, so a request may be
 *       refilled at once; a batch's completions are overwritten by its next poll.</li>
 *   <li>A <b>leased buffer</b> ({@link io.rdma.verbs.api.PooledBuffer}) belongs to its lessee
 *       until it is closed; leasing and returning are safe from any thread.</li>
 *   <li><b>Values</b> (records, enums, {@link io.rdma.verbs.api.Gid}, {@link io.rdma.verbs.api.Guid},
 *       {@link io.rdma.verbs.api.Unsigned64}) are immutable.</li>
 *   <li><b>Callbacks</b>: an {@link io.rdma.verbs.api.AsyncEventListener} runs on the provider's
 *       event thread, a peer-disconnect action on a thread of its own; neither runs on a thread
 *       that posts or polls, so either may close resources.</li>
 * </ul>
 */
@NullMarked
package io.rdma.verbs.api;

import org.jspecify.annotations.NullMarked;
