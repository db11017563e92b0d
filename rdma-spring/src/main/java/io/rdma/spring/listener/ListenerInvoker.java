package io.rdma.spring.listener;

import io.rdma.spring.template.RdmaTemplate;
import io.rdma.spring.template.RdmaWireFormat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs one {@link RdmaListener} method for the messages of every queue pair it listens on, at
 * most {@code concurrency} invocations at once (0: no limit), on worker virtual threads of its
 * own: a worker takes the oldest waiting message, runs the method, sends its reply and waits
 * for the send, reports a failure to the error handler, and takes the next message, so a
 * message costs a hand-over to a worker rather than a thread. There are at most
 * {@code concurrency} workers (without a limit, one more whenever a message finds none idle,
 * and a worker idle for {@link #KEEP_ALIVE} ends).
 *
 * <p>An invocation is in flight until the method has returned, its reply, if any, was sent or
 * has failed, and the error handler, if called, returned. A message that arrives while every
 * worker is busy waits, in arrival order, and its receive container does not get its buffer back
 * until its invocation starts (a copied message) or ends (a {@link ReceivedBuffer}): that is what
 * turns a slow listener into RNR back-pressure on the sender instead of an unbounded backlog.
 *
 * <p>The method does not run on the completion poller: a listener that blocks, or waits for its
 * reply to be sent, would stop the poller that completes the send.
 */
final class ListenerInvoker {

    private static final Log logger = LogFactory.getLog(ListenerInvoker.class);
    /** How long a worker without messages waits for one before it ends. */
    private static final Duration KEEP_ALIVE = Duration.ofSeconds(30);

    private final String description;
    private final Function<Delivery, byte @Nullable []> method;
    private final int concurrency;
    /** Runs the method on the poller thread that delivers, without a worker. */
    private final boolean onPollerThread;
    private final boolean lendsBuffers;
    private final RdmaListenerErrorHandler errorHandler;
    private final RdmaTemplate template;
    private final ThreadFactory workerThreads;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    /** Messages no worker has taken yet, oldest first. Guarded by {@link #lock}. */
    private final ArrayDeque<Delivery> waiting = new ArrayDeque<>();
    /** Guarded by {@link #lock}. */
    private int workers;
    /** Workers parked for a message; each message waiting beyond them needs a new worker. Guarded by {@link #lock}. */
    private int idleWorkers;
    /** Written under {@link #lock}; read without it where the poller thread runs the method. */
    private volatile boolean stopped;
    /** Buffers methods retained and have not released, to revoke when the listener stops. */
    private final Set<ReceivedBuffer.Retained> retained = ConcurrentHashMap.newKeySet();

    /**
     * {@code lendsBuffers}: the method takes a {@link ReceivedBuffer}, so messages are delivered in
     * their receive buffers rather than copied out.
     */
    ListenerInvoker(String description, Function<Delivery, byte @Nullable []> method, boolean lendsBuffers,
                    int concurrency, boolean onPollerThread, RdmaListenerErrorHandler errorHandler,
                    RdmaTemplate template, String workerName) {
        this.description = description;
        this.method = method;
        this.lendsBuffers = lendsBuffers;
        this.concurrency = concurrency;
        this.onPollerThread = onPollerThread;
        this.errorHandler = errorHandler;
        this.template = template;
        this.workerThreads = Thread.ofVirtual().name(workerName).factory();
    }

    boolean lendsBuffers() {
        return lendsBuffers;
    }

    /**
     * On a poller thread: runs the method here ({@code onPollerThread}), or hands {@code delivery}
     * to an idle worker, a new one, or the waiting line.
     */
    void deliver(Delivery delivery) {
        if (onPollerThread) {
            if (stopped) {
                refuse(delivery);
            } else {
                invoke(delivery, false);
            }
            return;
        }
        boolean refused = false;
        boolean startWorker = false;
        lock.lock();
        try {
            if (stopped) {
                refused = true;
            } else {
                waiting.add(delivery);
                startWorker = waiting.size() > idleWorkers && (concurrency == 0 || workers < concurrency);
                if (startWorker) {
                    workers++;
                } else if (idleWorkers > 0) {
                    arrived.signal();
                }
            }
        } finally {
            lock.unlock();
        }
        if (refused) {
            refuse(delivery);
        } else if (startWorker) {
            workerThreads.newThread(this::work).start();
        }
    }

    /** The listener stopped: the message's buffer goes back, and the message is reported lost. */
    private void refuse(Delivery delivery) {
        delivery.start();
        delivery.finish();
        logger.error(description + " did not handle a message of queue pair '" + delivery.queuePair()
                + "': the listener has stopped");
    }

    private void work() {
        for (Delivery next = take(); next != null; next = take()) {
            invoke(next, true);
        }
    }

    /**
     * The oldest waiting message, waiting for one: without a concurrency limit up to
     * {@link #KEEP_ALIVE}, so a burst's extra workers end; with one, until the listener stops, as
     * the workers are few and a timed wait would schedule a timer at every park. Null when this
     * worker ends.
     */
    private @Nullable Delivery take() {
        lock.lock();
        try {
            long remaining = KEEP_ALIVE.toNanos();
            Delivery next;
            while ((next = waiting.poll()) == null) {
                if (stopped || remaining <= 0) {
                    workers--;
                    return null;
                }
                idleWorkers++;
                try {
                    if (concurrency > 0) {
                        arrived.await();
                    } else {
                        remaining = arrived.awaitNanos(remaining);
                    }
                } catch (InterruptedException e) {
                    remaining = 0;
                } finally {
                    idleWorkers--;
                }
            }
            return next;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs the method for {@code delivery} and sends its reply. A worker waits for the reply to be
     * sent, so the message (and its buffer) stays in flight until then and a failed reply is
     * reported with the whole message. The poller thread must not wait ({@code waitForReply}
     * false): the message finishes (its buffer returns, on this thread, to which a lent buffer is
     * confined) when the method returns, and a reply that fails is reported when it does, with the
     * message as {@link Delivery#message()} then has it.
     */
    private void invoke(Delivery delivery, boolean waitForReply) {
        delivery.start();
        @Nullable CompletableFuture<Void> pending = null;
        try {
            byte[] reply = method.apply(delivery);
            if (reply != null) {
                pending = reply(delivery, reply);
                if (waitForReply) {
                    try {
                        pending.join();
                    } catch (CompletionException e) {
                        replyFailed(delivery, e);
                    }
                    pending = null;
                }
            }
        } catch (RuntimeException e) {
            handleError(delivery, e);
            answerWithError(delivery, e);
        } finally {
            delivery.finish();
        }
        if (pending != null) {
            pending.whenComplete((sent, failure) -> {
                if (failure != null) {
                    replyFailed(delivery, failure);
                }
            });
        }
    }

    /**
     * The reply, on the channel the message came in on: to a request of request/reply with its
     * correlation id, to a message with immediate data with that value, else without.
     */
    private CompletableFuture<Void> reply(Delivery delivery, byte[] reply) {
        try {
            return delivery.hasImmediateData()
                    ? template.reply(delivery.queuePair(), delivery.immediateData(), reply)
                    : template.reply(delivery.queuePair(), reply);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The method failed on a request of request/reply: the requester's future fails with the
     * failure's type and message at once, rather than waiting out its timeout. Posted without
     * waiting; a failure to send it is logged.
     */
    private void answerWithError(Delivery delivery, RuntimeException failure) {
        if (!delivery.hasImmediateData()
                || RdmaWireFormat.kind(delivery.immediateData()) != RdmaWireFormat.REQUEST) {
            return;
        }
        CompletableFuture<Void> sent;
        try {
            sent = template.replyWithError(delivery.queuePair(), delivery.immediateData(), failure);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((ignored, notSent) -> {
            if (notSent != null) {
                logger.error(description + " could not send the error reply to a request on channel '"
                        + delivery.queuePair() + "'", notSent);
            }
        });
    }

    private void replyFailed(Delivery delivery, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        handleError(delivery, new RdmaReplyException(delivery.queuePair(), cause));
    }

    private void handleError(Delivery delivery, Throwable failure) {
        try {
            errorHandler.handleError(delivery.message(), failure);
        } catch (RuntimeException e) {
            e.addSuppressed(failure);
            logger.error("The error handler of " + description + " failed on a message of queue pair '"
                    + delivery.queuePair() + "'", e);
        }
    }

    void retained(ReceivedBuffer.Retained buffer) {
        retained.add(buffer);
    }

    void released(ReceivedBuffer.Retained buffer) {
        retained.remove(buffer);
    }

    /**
     * Takes no more messages; workers finish the messages already waiting and end. The payloads
     * of buffers still retained become inaccessible, as their pool is about to be freed.
     */
    void stop() {
        lock.lock();
        try {
            stopped = true;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
        retained.forEach(ReceivedBuffer.Retained::revoke);
        retained.clear();
    }
}
