package io.rdma.spring.completion;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What a completion handler may ask of the thread that polls its CQ: to run a task itself, as
 * soon as the batch it polled is delivered, after leaving the polling to another thread of the
 * same CQ (leader/follower). A message handed to a worker costs a thread wake-up before the
 * handler runs; handed over this way, the thread that took the message runs it at once. While
 * tasks are short, nobody is even woken to poll meanwhile: the task's thread takes the polling
 * back, and a task that blocks after all has another thread poll within a millisecond; after
 * tasks that took long, another thread is woken at once. A task that blocks holds only its own
 * thread. The other calls here let a task wait for a completion, or go on to more work, without
 * leaving the CQ unpolled.
 */
public final class PollerHandOff {

    private PollerHandOff() {
    }

    /**
     * On a thread delivering completions it polled: runs {@code task} with {@code argument} on
     * this thread once the batch is delivered, after another thread of the CQ took over the
     * polling; true. False, and nothing is done, elsewhere, when a task of this batch was handed
     * over already, or when the CQ has as many tasks running as the machine has processors. (A
     * task and its argument rather than a lambda: a handler hands over one task per message,
     * and the same task each time.)
     */
    @SuppressWarnings("unchecked")
    public static <T> boolean runAfterBatch(Consumer<? super T> task, T argument) {
        return Thread.currentThread() instanceof PollingThread thread
                && thread.poller.handOverAfterBatch(thread, (Consumer<Object>) task, argument);
    }

    /**
     * Before this thread waits for {@code future}, for at most {@code timeoutNanos}: on a thread
     * running a handed-over task whose CQ nobody polls at that moment (the task's thread left the
     * seat without calling anyone, or the thread called has not started yet), this thread polls
     * the CQ itself until the future is done, rather than parking until another thread delivers
     * the completion it may wait for; for no longer than the timeout, nor than the CQ's mode has
     * its polling thread spin (not at all in {@code event} mode, the poll window in {@code
     * adaptive}): then another thread takes the polling over. Elsewhere nothing. The wait itself
     * is the caller's; the template's futures do this in their {@code get} and {@code join}.
     */
    public static void pollWhileWaiting(CompletableFuture<?> future, long timeoutNanos) {
        if (Thread.currentThread() instanceof PollingThread thread) {
            thread.poller.pollWhileWaiting(thread, future, timeoutNanos);
        }
    }

    /**
     * Before a task's thread goes on to more work than its task (the next of a backlog, say): a
     * seat it left without calling anyone, counting on coming back soon, goes to another thread
     * at once. Elsewhere nothing.
     */
    public static void handOn() {
        if (Thread.currentThread() instanceof PollingThread thread) {
            thread.poller.handOn(thread);
        }
    }
}
