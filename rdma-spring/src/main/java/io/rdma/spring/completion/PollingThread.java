package io.rdma.spring.completion;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * One of the platform threads of a {@link CompletionPoller}: at any time it polls the CQ (holds
 * the poller's seat), runs a completion handler's task after handing the polling on, or stands
 * by to poll. Its fields are its own unless said otherwise.
 */
final class PollingThread extends Thread {

    final CompletionPoller poller;
    /** Polling in the poller's loop, where a handler may hand a task over ({@link PollerHandOff#runAfterBatch}). */
    boolean leading;
    /** Polling while its task waits ({@link PollerHandOff#pollWhileWaiting}): no task is handed over then. */
    boolean helping;
    /** Runs a handed-over task: a stop does not wait for it. Read by the stopping thread. */
    volatile boolean inTask;
    /** The task it took from the seat with its last batch, and the task's argument, until it runs it. */
    @Nullable Consumer<Object> task;
    @Nullable Object taskArgument;
    /** When its current task started. */
    long taskStarted;
    /** Whether its current task took it back to the seat, or ended: how long that took is counted. */
    boolean backAtSeat;
    /** Among the poller's threads standing by. Guarded by the poller's lock of its threads. */
    boolean standing;

    PollingThread(CompletionPoller poller, String name) {
        super(name);
        this.poller = poller;
        setDaemon(true);
    }

    @Override
    public void run() {
        poller.serve(this);
    }
}
