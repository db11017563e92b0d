package io.rdma.spring.listener;

import io.rdma.spring.template.RdmaTemplate;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs one {@link RdmaListener} method for the messages of every queue pair it listens on,
 * each invocation on a virtual thread, at most {@code concurrency} at once (0: no limit). An
 * invocation is in flight until the method has returned and its reply, if any, was sent or has
 * failed. A message that arrives while the limit is reached waits, in arrival order, and its
 * receive container does not get its buffer back until it starts: that is what turns a slow
 * listener into RNR back-pressure on the sender instead of an unbounded backlog. Failures (the
 * method threw, the reply could not be sent) go to the error handler, on a virtual thread.
 */
final class ListenerInvoker {

    private static final Log logger = LogFactory.getLog(ListenerInvoker.class);

    /** A message waiting for an invocation, and what starting it gives back to its receive container. */
    private record Waiting(ReceivedMessage message, Runnable onStart) {
    }

    private final String description;
    private final Function<ReceivedMessage, byte @Nullable []> method;
    private final int concurrency;
    private final RdmaListenerErrorHandler errorHandler;
    private final RdmaTemplate template;
    private final Executor executor;
    /** Guarded by this. */
    private final Deque<Waiting> waiting = new ArrayDeque<>();
    /** Invocations in flight, counted only under a limit; guarded by this. */
    private int inFlight;

    ListenerInvoker(String description, Function<ReceivedMessage, byte @Nullable []> method, int concurrency,
                    RdmaListenerErrorHandler errorHandler, RdmaTemplate template, Executor executor) {
        this.description = description;
        this.method = method;
        this.concurrency = concurrency;
        this.errorHandler = errorHandler;
        this.template = template;
        this.executor = executor;
    }

    /**
     * On a poller thread: starts an invocation for {@code message}, running {@code onStart}
     * first, or queues it while {@code concurrency} invocations are in flight.
     */
    void deliver(ReceivedMessage message, Runnable onStart) {
        if (concurrency == 0) {
            // no limit: nothing to count on the poller's path
            start(message, onStart);
            return;
        }
        synchronized (this) {
            if (inFlight >= concurrency) {
                waiting.add(new Waiting(message, onStart));
                return;
            }
            inFlight++;
        }
        start(message, onStart);
    }

    private void start(ReceivedMessage message, Runnable onStart) {
        onStart.run();
        try {
            executor.execute(() -> invoke(message));
        } catch (RejectedExecutionException stopping) {
            logger.error(description + " did not handle a message of queue pair '" + message.queuePair()
                    + "': the listener has stopped", stopping);
            finished();
        }
    }

    private void invoke(ReceivedMessage message) {
        byte[] reply;
        try {
            reply = method.apply(message);
        } catch (RuntimeException e) {
            handleError(message, e);
            finished();
            return;
        }
        if (reply == null) {
            finished();
            return;
        }
        reply(message, reply).whenComplete((sent, failure) -> {
            if (failure == null) {
                finished();
                return;
            }
            // A send fails on a poller or timer thread, where an error handler must not run, and
            // may fail as the application stops, after the executor did: a thread of its own.
            Thread.ofVirtual().name("rdma-listener-reply-failed").start(() -> {
                handleError(message, new RdmaReplyException(message.queuePair(), unwrap(failure)));
                finished();
            });
        });
    }

    /** The reply, on the queue pair the request came in on, with the request's immediate data when it had some. */
    private CompletableFuture<Void> reply(ReceivedMessage message, byte[] reply) {
        try {
            return message.hasImmediateData() ? template.send(message.queuePair(), reply, message.immediateData())
                    : template.send(message.queuePair(), reply);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private void handleError(ReceivedMessage message, Throwable failure) {
        try {
            errorHandler.handleError(message, failure);
        } catch (RuntimeException e) {
            e.addSuppressed(failure);
            logger.error("The error handler of " + description + " failed on a message of queue pair '"
                    + message.queuePair() + "'", e);
        }
    }

    /** An invocation is over: the oldest waiting message takes its place. */
    private void finished() {
        if (concurrency == 0) {
            return;
        }
        Waiting next;
        synchronized (this) {
            next = waiting.poll();
            if (next == null) {
                inFlight--;
                return;
            }
        }
        start(next.message(), next.onStart());
    }
}
