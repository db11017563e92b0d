package io.rdma.spring.listener;

import io.rdma.spring.completion.PollerHandOff;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.spring.template.RdmaWireFormat;
import io.rdma.spring.template.ReplyOutcome;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Runs one {@link RdmaListener} method for the messages of every channel it listens on, at
 * most {@code concurrency} invocations at once (0: no limit), never on a thread while it polls a
 * CQ. A message is first offered to the thread that polled it ({@link PollerHandOff}): that
 * thread hands the polling to another of its CQ's threads and runs the method itself, so the
 * message waits for no thread to wake (a worker woken per message measured 33 µs per
 * request/reply round trip on two cores, most of it two wake-ups), and the one that polls next
 * wakes while the method runs. While it waits for its reply's send it polls the CQ itself if the
 * next one has not started yet (for as long as the CQ's mode spins), and it takes the messages
 * that waited for it meanwhile. What
 * that cannot take (a second message of one batch, a CQ with a task per processor running, a
 * listener with as many invocations on platform threads as processors) goes to worker threads of
 * the listener's own: platform threads up to the number of processors, counting the handed-over
 * invocations, virtual threads beyond them (a parked virtual thread is woken through its
 * scheduler, a hand-over that took a round trip from 48 to 73 µs on two cores; a burst of
 * blocking invocations still costs no platform thread each). A worker takes the oldest waiting
 * message, runs the method (again after its error handler's back-off, while that allows), sends
 * its reply and waits for the send, hands what retries could not fix to the error handler, and
 * takes the next message. There are at most {@code concurrency} workers (without a limit, one
 * more whenever a message finds none idle, and a worker idle for {@link #KEEP_ALIVE} ends).
 *
 * <p>An invocation is in flight until the method has returned, its reply, if any, was sent or
 * has failed, and the error handler, if called, returned. A message that arrives while every
 * worker is busy, or while the listener is paused, waits, in arrival order, and its receive
 * container does not get its buffer back until its invocation starts (a copied message) or ends
 * (a {@link ReceivedBuffer}): that is what turns a slow or paused listener into RNR back-pressure
 * on the sender instead of an unbounded backlog.
 *
 * <p>It starts paused, and its container {@link #resume resumes} it; {@link #pause} stops
 * starting invocations (those in flight go on), {@link #pause(Runnable)} also says when the last
 * in-flight one ends. {@link #terminate} (the context closes) gives every waiting message's
 * buffer back and ends the workers.
 *
 * <p>The method does not run on a thread while it polls unless {@code onPollerThread}: a
 * listener that blocks, or waits for its reply to be sent, would stop the poller that completes
 * the send. On the poller thread a failure goes to the error handler at once: waiting out a
 * back-off there would stop every completion of the CQ.
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
    /** How many of a listener's workers run on platform threads at most. */
    private static final int PLATFORM_WORKERS = Runtime.getRuntime().availableProcessors();
    private final ThreadFactory platformWorkers;
    private final ThreadFactory virtualWorkers;
    /** {@link #runHandedOver}, made once: handed over with each message, it allocates nothing per message. */
    private final Consumer<Delivery> handedOverTask = this::runHandedOver;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    /** Messages no invocation has taken yet, oldest first. Guarded by {@link #lock}. */
    private final ArrayDeque<Delivery> waiting = new ArrayDeque<>();
    /** Guarded by {@link #lock}. */
    private int workers;
    /** Invocations handed over to the threads that polled their messages. Guarded by {@link #lock}. */
    private int handedOver;
    /** Those of {@link #workers} on platform threads, and the {@link #handedOver} ones. Guarded by {@link #lock}. */
    private int workersOnPlatformThreads;
    /** Workers parked for a message; each message waiting beyond them needs a new worker. Guarded by {@link #lock}. */
    private int idleWorkers;
    /** Invocations started and not ended. Guarded by {@link #lock}. */
    private int inFlight;
    /** Told when {@link #inFlight} drops to 0 while paused. Guarded by {@link #lock}. */
    private final List<Runnable> whenIdle = new ArrayList<>();
    /** Written under {@link #lock}; read without it where the poller thread runs the method. */
    private volatile boolean paused = true;
    /** Written under {@link #lock}: the context closed. */
    private volatile boolean terminated;
    /** Buffers methods retained and have not released, to revoke when the listener terminates. */
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
        this.platformWorkers = Thread.ofPlatform().daemon().name(workerName).factory();
        this.virtualWorkers = Thread.ofVirtual().name(workerName).factory();
    }

    boolean lendsBuffers() {
        return lendsBuffers;
    }

    /**
     * On a poller thread: runs the method here ({@code onPollerThread}, while running), or hands
     * {@code delivery} over ({@link #handOver}).
     */
    void deliver(Delivery delivery) {
        if (onPollerThread && !paused) {
            if (beginInline()) {
                try {
                    invoke(delivery, false);
                } finally {
                    end();
                }
                return;
            }
        }
        handOver(delivery);
    }

    /**
     * Hands {@code delivery} to this thread for after its batch ({@link PollerHandOff}), to an idle
     * worker, a new one, or the waiting line.
     */
    private void handOver(Delivery delivery) {
        boolean refused = false;
        ThreadFactory newWorker = null;
        lock.lock();
        try {
            if (terminated) {
                refused = true;
            } else if (mayRunWherePolled() && PollerHandOff.runAfterBatch(handedOverTask, delivery)) {
                handedOver++;
                workersOnPlatformThreads++;
                inFlight++;
            } else {
                waiting.add(delivery);
                newWorker = workerNeeded();
            }
        } finally {
            lock.unlock();
        }
        if (refused) {
            refuse(delivery);
        } else if (newWorker != null) {
            newWorker.newThread(this::work).start();
        }
    }

    /**
     * Whether a message may be handed over to the thread that polled it: a worker listener's, with
     * nothing waiting before it (which keeps the order of a listener of one invocation at a time),
     * a place free under its concurrency (idle workers take none) and a platform thread left to
     * it. Under the lock.
     */
    private boolean mayRunWherePolled() {
        return !onPollerThread && !paused && waiting.isEmpty() && workersOnPlatformThreads < PLATFORM_WORKERS
                && (concurrency == 0 || busy() < concurrency);
    }

    /** Invocations running, or about to. Under the lock. */
    private int busy() {
        return workers - idleWorkers + handedOver;
    }

    /**
     * The threads of the new worker that a message now waiting needs, counted as started; null
     * when it needs none, after signalling an idle one. A message that finds its listener's
     * concurrency taken waits for the thread of an invocation that ends: a worker, or the thread
     * of a handed-over one, takes it then. Under the lock.
     */
    private @Nullable ThreadFactory workerNeeded() {
        if (paused || waiting.isEmpty() || (!onPollerThread && concurrency > 0 && busy() >= concurrency)) {
            return null;
        }
        if (waiting.size() > idleWorkers && (onPollerThread ? workers == 0 : concurrency == 0 || workers < concurrency)) {
            return workerStarted();
        }
        if (idleWorkers > 0) {
            arrived.signal();
        }
        return null;
    }

    /** Counts a worker started, and says on which threads it runs. Under the lock. */
    private ThreadFactory workerStarted() {
        workers++;
        if (workersOnPlatformThreads < PLATFORM_WORKERS) {
            workersOnPlatformThreads++;
            return platformWorkers;
        }
        return virtualWorkers;
    }

    /** An inline invocation on the poller thread starts, unless paused meanwhile (then it waits as others do). */
    private boolean beginInline() {
        lock.lock();
        try {
            if (paused || terminated || !waiting.isEmpty()) {
                return false; // what waits from a pause goes first, on a worker
            }
            inFlight++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void end() {
        ended(false, false);
    }

    /**
     * An invocation ended. The thread of a handed-over one ({@code wasHandedOver}) takes the next
     * waiting message, if {@code takeNext} and the listener runs, and returns it, counted in
     * flight; else it gives its place back, and null.
     */
    private @Nullable Delivery ended(boolean wasHandedOver, boolean takeNext) {
        List<Runnable> idle = List.of();
        Delivery next = null;
        lock.lock();
        try {
            inFlight--;
            if (wasHandedOver) {
                next = takeNext && !paused ? waiting.poll() : null;
                if (next != null) {
                    inFlight++;
                } else {
                    handedOver--;
                    workersOnPlatformThreads--;
                }
            }
            if (inFlight == 0 && paused && !whenIdle.isEmpty()) {
                idle = List.copyOf(whenIdle);
                whenIdle.clear();
            }
        } finally {
            lock.unlock();
        }
        if (!idle.isEmpty()) { // forEach on the empty list would allocate an iterator per invocation
            idle.forEach(Runnable::run);
        }
        return next;
    }

    /**
     * On the thread that polled {@code first}, the polling handed on: runs the method for it as a
     * worker does, then for the messages that waited for this invocation's place meanwhile,
     * handing on first the polling this thread took up while waiting for a reply's send.
     */
    private void runHandedOver(Delivery first) {
        Delivery next = first;
        do {
            boolean invoked = false;
            try {
                invoke(next, true);
                invoked = true;
            } finally {
                next = ended(true, invoked);
            }
            if (next != null) {
                PollerHandOff.handOn();
            }
        } while (next != null);
    }

    /** The listener is gone: the message's buffer goes back, and the message is reported lost. */
    private void refuse(Delivery delivery) {
        // lost, but not to a fault: the container stopped (a shutdown) while the peer still sent
        logger.warn(description + " did not handle a message of channel '" + delivery.queuePair()
                + "': the listener was closed");
        delivery.start();
        delivery.finish();
    }

    private void work() {
        for (Delivery next = take(); next != null; next = take()) {
            try {
                invoke(next, !onPollerThread);
            } finally {
                end();
            }
        }
    }

    /**
     * The oldest waiting message, waiting for one while there is none or the listener is paused:
     * without a concurrency limit up to {@link #KEEP_ALIVE}, so a burst's extra workers end; with
     * one, until the listener terminates, as the workers are few and a timed wait would schedule a
     * timer at every park. A worker of a poller-thread listener (which only runs what waited out a
     * pause) ends as soon as nothing waits. Null when this worker ends; else the invocation is
     * counted in flight.
     */
    private @Nullable Delivery take() {
        lock.lock();
        try {
            long remaining = KEEP_ALIVE.toNanos();
            Delivery next;
            while (paused || (next = waiting.poll()) == null) {
                if (terminated || remaining <= 0 || (onPollerThread && !paused)) {
                    workers--;
                    if (!Thread.currentThread().isVirtual()) {
                        workersOnPlatformThreads--;
                    }
                    return null;
                }
                idleWorkers++;
                try {
                    if (concurrency > 0 && !onPollerThread) {
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
            inFlight++;
            return next;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs the method for {@code delivery}, again while the error handler's back-off allows
     * ({@code mayWait}: on a worker), and sends its reply.
     */
    private void invoke(Delivery delivery, boolean mayWait) {
        delivery.start();
        try {
            byte[] reply = callWithRetries(delivery, mayWait);
            if (reply != null) {
                reply(delivery, reply, mayWait);
            }
        } catch (RuntimeException e) {
            handleError(delivery, e);
            answerWithError(delivery, e);
        } finally {
            delivery.finish();
        }
    }

    /**
     * The method's result; a failure is tried again after each interval of the error handler's
     * back-off (made for the message at its first failure), and thrown once the back-off stops,
     * or at once where waiting is not allowed.
     */
    private byte @Nullable [] callWithRetries(Delivery delivery, boolean mayWait) {
        BackOffExecution retries = null;
        while (true) {
            try {
                return method.apply(delivery);
            } catch (RuntimeException e) {
                if (!mayWait) {
                    throw e;
                }
                if (retries == null) {
                    retries = errorHandler.backOff().start();
                }
                long interval = retries.nextBackOff();
                if (interval == BackOffExecution.STOP || terminated) {
                    throw e;
                }
                logger.debug(description + " failed on a message of channel '" + delivery.queuePair()
                        + "'; trying again in " + interval + " ms", e);
                try {
                    Thread.sleep(interval);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * Sends the method's reply on the channel the message came in on: to a request of
     * request/reply with its correlation id, to a message with immediate data with that value,
     * else without. A reply that fails reaches the error handler through the delivery's
     * {@link Delivery#replyOutcome reply outcome}, with the message. A worker, or the thread a
     * message was handed over to ({@code wait}), waits for the reply to be sent, so the message
     * (and its buffer) stays in flight until then; the latter polls for the send meanwhile where
     * nobody else does ({@link PollerHandOff#pollWhileWaiting}). The poller thread must not wait: the message
     * finishes (its buffer returns) when the method returns, and a reply that fails is reported
     * when it does, with the message as {@link Delivery#message()} then has it.
     */
    private void reply(Delivery delivery, byte[] reply, boolean wait) {
        ReplyOutcome outcome = delivery.replyOutcome(this);
        CompletableFuture<Void> sent;
        try {
            sent = template.reply(delivery.queuePair(), delivery.hasImmediateData(), delivery.immediateData(), reply,
                    outcome);
        } catch (RuntimeException e) {
            outcome.replySettled(e);
            return;
        }
        if (wait) {
            try {
                sent.join(); // on the thread that polled the request, it polls for the send meanwhile (TemplateFuture)
            } catch (CompletionException | CancellationException reported) {
                // the outcome reported it to the error handler before the future completed
            }
        }
    }

    /**
     * The method failed for good on a request of request/reply: the requester's future fails with
     * the failure's type and message at once, rather than waiting out its timeout. Posted without
     * waiting; a failure to send it is logged.
     */
    private void answerWithError(Delivery delivery, RuntimeException failure) {
        if (!delivery.hasImmediateData()
                || RdmaWireFormat.kind(delivery.immediateData()) != RdmaWireFormat.REQUEST) {
            return;
        }
        String channel = delivery.queuePair(); // not the delivery: a copied one carries another message by then
        CompletableFuture<Void> sent;
        try {
            sent = template.replyWithError(channel, delivery.immediateData(), failure);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((ignored, notSent) -> {
            if (notSent == null) {
                return;
            }
            if (new RdmaReplyException(channel, notSent).isChannelFailure()) {
                logger.warn("The error reply of " + description + " to a request on channel '" + channel
                        + "' was lost with the channel: " + notSent.getMessage());
            } else {
                logger.error(description + " could not send the error reply to a request on channel '" + channel + "'",
                        notSent);
            }
        });
    }

    /** The reply to {@code delivery}'s message was not sent: the error handler hears of it. */
    void replyFailed(Delivery delivery, Throwable failure) {
        handleError(delivery, new RdmaReplyException(delivery.queuePair(), failure));
    }

    private void handleError(Delivery delivery, Throwable failure) {
        try {
            errorHandler.handleError(delivery.message(), failure);
        } catch (RuntimeException e) {
            e.addSuppressed(failure);
            logger.error("The error handler of " + description + " failed on a message of channel '"
                    + delivery.queuePair() + "'", e);
        }
    }

    void retained(ReceivedBuffer.Retained buffer) {
        retained.add(buffer);
    }

    void released(ReceivedBuffer.Retained buffer) {
        retained.remove(buffer);
    }

    /** Starts invocations again: of the messages that waited first, in order, then of new ones. */
    void resume() {
        List<ThreadFactory> toStart = new ArrayList<>();
        lock.lock();
        try {
            if (terminated) {
                throw new IllegalStateException(description + " was closed with its application context");
            }
            paused = false;
            whenIdle.clear();
            arrived.signalAll();
            int room = onPollerThread ? (workers == 0 ? 1 : 0)
                    : concurrency == 0 ? Integer.MAX_VALUE : concurrency - workers - handedOver;
            for (int i = Math.max(0, Math.min(waiting.size() - idleWorkers, room)); i > 0; i--) {
                toStart.add(workerStarted());
            }
        } finally {
            lock.unlock();
        }
        for (ThreadFactory threads : toStart) {
            threads.newThread(this::work).start();
        }
    }

    /** Starts no more invocations; messages that arrive wait, keeping their buffers. */
    void pause() {
        pause(() -> { });
    }

    /** {@link #pause()}, and runs {@code idle} once no invocation is in flight: at once, or on the thread of the last one. */
    void pause(Runnable idle) {
        boolean now;
        lock.lock();
        try {
            paused = true;
            now = inFlight == 0;
            if (!now) {
                whenIdle.add(idle);
            }
        } finally {
            lock.unlock();
        }
        if (now) {
            idle.run();
        }
    }

    boolean isPaused() {
        return paused;
    }

    /**
     * The context is closing: the buffers of waiting messages go back (those messages are
     * reported lost), workers end, and the payloads of buffers still retained become
     * inaccessible, as their pool is about to be freed.
     */
    void terminate() {
        List<Delivery> lost;
        lock.lock();
        try {
            paused = true;
            terminated = true;
            lost = List.copyOf(waiting);
            waiting.clear();
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
        lost.forEach(this::refuse);
        retained.forEach(ReceivedBuffer.Retained::revoke);
        retained.clear();
    }
}
