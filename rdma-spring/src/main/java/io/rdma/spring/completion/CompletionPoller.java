package io.rdma.spring.completion;

import io.rdma.spring.resource.CompletionMode;
import io.rdma.spring.resource.CompletionPolling;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.WorkCompletion;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Takes the completions of one CQ and hands them to the {@link CompletionRouter}, on platform
 * threads named {@code rdma-cq-<name>} (the first) and {@code rdma-cq-<name>-<n>}. One of them
 * polls at a time (it holds the poller's seat). A handler may ask that thread to run a task
 * itself once the batch is delivered ({@link PollerHandOff}): it then leaves the seat, runs the
 * task, and afterwards polls again if the seat is still vacant, or stands by. Who takes the seat
 * meanwhile: a thread standing by (or a new one), woken at once when tasks have taken long lately,
 * else only should the seat stay vacant for {@link #WATCH_INTERVAL}, since a short task's thread
 * takes the seat back first ({@link #vacate}). The mode decides how the polling thread waits:
 * {@code polling} spins on {@code ibv_poll_cq}; {@code event} sleeps on the CQ's completion
 * channel, re-arming before each poll ({@link CompletionQueue#awaitCompletions}, verbs manual §5.4);
 * {@code adaptive} spins while completions keep coming and sleeps once the poll window passes
 * without one. Between polls that found the CQ empty it spins or backs off
 * ({@link io.rdma.spring.resource.CompletionIdle}). Counts are written by the thread that holds
 * the seat only and read on scrape.
 */
public final class CompletionPoller {

    private static final Log logger = LogFactory.getLog(CompletionPoller.class);
    /** How long a sleeping poller waits before checking whether it should stop. */
    private static final Duration WAKE_INTERVAL = Duration.ofMillis(50);
    /** Tasks that the threads of one CQ run at once at most: beyond them, a handler finds another way. */
    private static final int TASKS_AT_MOST = Runtime.getRuntime().availableProcessors();

    /**
     * How long a seat left vacant by a short task stays so before the watch calls a thread
     * standing by: what a handler that blocks unexpectedly costs the CQ's other completions at
     * most (Go's runtime retakes a processor from a blocked system call the same way), and
     * what the watch costs, one wake-up per interval while tasks come.
     */
    static final Duration WATCH_INTERVAL = Duration.ofMillis(1);
    /** Tasks that gave their thread back to the seat within this, on average, hand the seat on without waking anyone. */
    private static final long SHORT_TASK_NANOS = 50_000;
    /** Intervals without a task before the watch sleeps until the next one. */
    private static final int WATCH_QUIET_INTERVALS = 100;

    private static final int VACANT = 0;
    private static final int HELD = 1;
    private static final int CLOSED = 2;

    private final String name;
    private final CompletionQueue cq;
    private final CompletionMode mode;
    private final long pollWindowNanos;
    private final CompletionRouter router;
    private final CompletionBatch batch;
    private final PollerIdle idle;
    private final PollingThread first;
    private final Thread watch;
    private final long watchIntervalNanos;
    /**
     * Who polls: {@link #HELD} by one thread, {@link #VACANT} while it changes hands (taken by a
     * compare-and-set, which orders one holder's writes to the fields it owns before the next
     * holder's reads), {@link #CLOSED} once stopped.
     */
    private final AtomicInteger seat = new AtomicInteger(VACANT);
    /** Handed-over tasks accepted and not ended. */
    private final AtomicInteger tasks = new AtomicInteger();
    /** Guards {@link #threads}, {@link #standingBy} and {@link #summoned}. */
    private final Object threadsLock = new Object();
    private final List<PollingThread> threads = new ArrayList<>();
    /** Threads parked until the seat is vacant, the latest first. */
    private final ArrayDeque<PollingThread> standingBy = new ArrayDeque<>();
    /**
     * The thread woken (or started) to take the vacant seat, until it tried: while it is on its
     * way, a seat vacated again calls nobody else.
     */
    private @Nullable PollingThread summoned;
    /**
     * How long the tasks kept their threads from the seat (until they took it up again while
     * waiting, or ended), a moving average; updated by the tasks' threads without a lock, which
     * may lose an update: a heuristic.
     */
    private volatile long taskNanos;
    /** When the seat was last left vacant without calling anyone. */
    private volatile long vacantSince;
    /** Vacancies left without calling anyone, so far: written by the seat's holder only. */
    private volatile long quietVacancies;
    /** The watch sleeps until the next such vacancy wakes it. */
    private volatile boolean watchAsleep;
    /** The watch was started, by the first such vacancy: a CQ whose handlers hand nothing over has none. Owned by the seat's holder. */
    private boolean watchStarted;
    /** The task the seat's holder runs once its batch is delivered, and its argument. Owned by the seat's holder. */
    private @Nullable Consumer<Object> afterBatch;
    private @Nullable Object afterBatchArgument;
    private volatile boolean running = true;
    private volatile long completions;
    /**
     * Failed completions by {@code ibv_wc_status} number. Written by the seat's holder only (a plain
     * read and a release write, no read-modify-write) and read by scrapes; failures are rare, so
     * the successes, which are the hot path, are counted in {@link #completions} alone.
     */
    private final AtomicLongArray errorsByStatus = new AtomicLongArray(CompletionStatus.values().length);
    private volatile long unrouted;
    /** Incremented after every poll that found the CQ empty: shutdown waits for one after its flush. */
    private volatile long emptyPolls;

    CompletionPoller(String name, CompletionQueue cq, CompletionPolling polling, CompletionRouter router) {
        this(name, cq, polling, router, WATCH_INTERVAL);
    }

    CompletionPoller(String name, CompletionQueue cq, CompletionPolling polling, CompletionRouter router,
                     Duration watchInterval) {
        this.watchIntervalNanos = watchInterval.toNanos();
        this.name = name;
        this.cq = cq;
        this.mode = polling.mode();
        this.pollWindowNanos = polling.pollWindow().toNanos();
        this.router = router;
        this.batch = new CompletionBatch(polling.batchSize());
        this.idle = new PollerIdle(polling.idle(), polling.backoff());
        this.first = new PollingThread(this, "rdma-cq-" + name);
        threads.add(first);
        this.watch = Thread.ofPlatform().name("rdma-cq-" + name + "-watch").daemon(true).unstarted(this::watch);
    }

    void start() {
        first.start();
    }

    /**
     * Asks the threads to finish, and waits until none polls and for those not running a
     * handed-over task (a task ends on its own; its thread ends then).
     */
    void stop() throws InterruptedException {
        running = false;
        while (!seat.compareAndSet(VACANT, CLOSED) && seat.get() != CLOSED) {
            Thread.sleep(1); // the holder sees running false within a poll, or a WAKE_INTERVAL when sleeping on events
        }
        List<PollingThread> all = wakeEveryThread();
        LockSupport.unpark(watch);
        for (PollingThread thread : all) {
            if (!thread.inTask) {
                thread.join();
            }
        }
        if (watch.isAlive()) { // closed: no vacancy starts it now
            watch.join();
        }
    }

    public String name() {
        return name;
    }

    public CompletionQueue completionQueue() {
        return cq;
    }

    public CompletionMode mode() {
        return mode;
    }

    /** Successful completions taken so far. */
    public long completions() {
        return completions;
    }

    /** Completions with an error status taken so far (flushes included): the sum of the counts by status. */
    public long errors() {
        long errors = 0;
        for (int status = 0; status < errorsByStatus.length(); status++) {
            errors += errorsByStatus.get(status);
        }
        return errors;
    }

    /** Completions with {@code status} taken so far ({@link #completions()} for {@code SUCCESS}). */
    public long completions(CompletionStatus status) {
        return status == CompletionStatus.SUCCESS ? completions : errorsByStatus.get(status.value());
    }

    /**
     * Completions taken so far by status ({@code SUCCESS} and each error status seen, such as
     * {@code WR_FLUSH_ERR}); statuses never seen are left out.
     */
    public Map<CompletionStatus, Long> completionsByStatus() {
        Map<CompletionStatus, Long> byStatus = new EnumMap<>(CompletionStatus.class);
        long succeeded = completions;
        if (succeeded > 0) {
            byStatus.put(CompletionStatus.SUCCESS, succeeded);
        }
        for (CompletionStatus status : CompletionStatus.values()) {
            long count = errorsByStatus.get(status.value());
            if (count > 0) {
                byStatus.put(status, count);
            }
        }
        return byStatus;
    }

    /** Completions no handler was registered for. */
    public long unrouted() {
        return unrouted;
    }

    long emptyPolls() {
        return emptyPolls;
    }

    /** The thread that polls first, and while no handler hands a task over, the only one. */
    Thread thread() {
        return first;
    }

    /** Whether one of its threads polls, or will once the seat changed hands: not stopped, nor ended by a closed CQ. */
    boolean isPolling() {
        return seat.get() != CLOSED;
    }

    /** The loop of each of its threads: poll while holding the seat, run what was handed over, stand by. */
    void serve(PollingThread self) {
        boolean called = true; // started, or back from standing by: it may be the thread summoned
        while (true) {
            if (called) {
                synchronized (threadsLock) {
                    if (summoned == self) {
                        summoned = null; // before trying the seat: a seat vacated after a failed try must call someone
                    }
                }
            }
            if (seat.compareAndSet(VACANT, HELD)) {
                if (called) {
                    seated(self);
                }
                if (!lead(self)) {
                    return;
                }
                runTask(self);
                called = false;
            } else if (seat.get() == CLOSED) {
                return;
            } else {
                standBy(self);
                called = true;
            }
        }
    }

    /**
     * Polls until a handler hands a task over (then vacates the seat: true, the task to run) or
     * the poller stops (then closes the seat: true if a task was accepted meanwhile).
     */
    private boolean lead(PollingThread self) {
        long lastCompletion = System.nanoTime();
        idle.reset();
        self.leading = true;
        try {
            while (running) {
                boolean polling = spinsAfter(lastCompletion);
                int count;
                try {
                    count = polling ? cq.poll(batch) : cq.awaitCompletions(batch, WAKE_INTERVAL);
                } catch (InterruptedException e) {
                    // meant for the code of a task this thread ran (the interrupt is cleared now): only stop() stops it
                    continue;
                }
                if (count > 0) {
                    deliver(count);
                    lastCompletion = System.nanoTime();
                    idle.reset();
                    if (tookTask(self)) {
                        vacate();
                        return true;
                    }
                } else {
                    emptyPolls++;
                    if (polling) {
                        idle.idle();
                    }
                }
            }
        } catch (ResourceClosedException e) {
            logger.warn("Completion queue '" + name + "' was closed while its poller ran; the poller stops", e);
        } finally {
            self.leading = false;
        }
        boolean task = tookTask(self);
        close();
        return task;
    }

    /**
     * Whether the mode has the seat's holder poll now, rather than sleep on the CQ's channel:
     * always in {@code polling}, within the poll window since the last completion in {@code
     * adaptive}, never in {@code event}.
     */
    private boolean spinsAfter(long lastCompletion) {
        return mode == CompletionMode.POLLING
                || mode == CompletionMode.ADAPTIVE && System.nanoTime() - lastCompletion < pollWindowNanos;
    }

    /** The seat's holder takes the task handed over with its batch, if any, for its own before it leaves the seat. */
    private boolean tookTask(PollingThread self) {
        if (afterBatch == null) {
            return false;
        }
        self.task = afterBatch;
        self.taskArgument = afterBatchArgument;
        afterBatch = null;
        afterBatchArgument = null;
        return true;
    }

    /** On the seat's holder, delivering: {@code task} runs on this thread after the batch, unless one does already. */
    boolean handOverAfterBatch(PollingThread self, Consumer<Object> task, Object argument) {
        if (!self.leading || afterBatch != null || !running || tasks.get() >= TASKS_AT_MOST) {
            return false;
        }
        tasks.incrementAndGet();
        afterBatch = task;
        afterBatchArgument = argument;
        return true;
    }

    /** Runs the task {@code self} took with the last batch it polled. */
    private void runTask(PollingThread self) {
        Consumer<Object> task = Objects.requireNonNull(self.task, "runs only after tookTask");
        Object argument = self.taskArgument;
        self.task = null;
        self.taskArgument = null;
        self.inTask = true;
        self.taskStarted = System.nanoTime();
        self.backAtSeat = false;
        try {
            task.accept(argument);
        } catch (RuntimeException e) {
            logger.error("A task handed over by a completion handler of completion queue '" + name + "' failed", e);
        } finally {
            Thread.interrupted(); // an interrupt the task left would end the waits of polling and standing by
            self.inTask = false;
            tasks.decrementAndGet();
            backAtSeat(self);
        }
    }

    /**
     * On a thread running a handed-over task: while the seat is vacant, polls until {@code future}
     * is done, for {@code timeoutNanos} at most and for as long as the mode has a polling thread
     * spin ({@link #spinsAfter}): a task's wait costs the CQ no more than its polling does (a send
     * waiting out an RC retry, or for room, must not keep a core busy for seconds). It then leaves
     * the seat: quietly once the future is done (its task most likely ends now, and its thread
     * takes the seat up again), or calling another thread to poll while the task's wait goes on,
     * parked. Should the polling fail unexpectedly (an error a handler threw), the seat is left
     * for another thread too.
     */
    void pollWhileWaiting(PollingThread self, CompletableFuture<?> future, long timeoutNanos) {
        if (future.isDone() || !self.inTask || self.helping) {
            return;
        }
        if (mode == CompletionMode.EVENT || !seat.compareAndSet(VACANT, HELD)) {
            handOn(self); // in event mode, nobody polls for a waiting task: a thread sleeps on the channel for it
            return;
        }
        seated(self);
        backAtSeat(self);
        self.helping = true;
        idle.reset();
        long start = System.nanoTime();
        long lastCompletion = start;
        boolean left = false;
        try {
            while (!future.isDone()) {
                if (!running) {
                    left = true;
                    close();
                    return;
                }
                if (!spinsAfter(lastCompletion) || System.nanoTime() - start >= timeoutNanos
                        || Thread.currentThread().isInterrupted()) {
                    break; // an interrupted caller's wait ends as it would parked
                }
                int count = cq.poll(batch);
                if (count > 0) {
                    deliver(count);
                    lastCompletion = System.nanoTime();
                    idle.reset();
                } else {
                    emptyPolls++;
                    idle.idle();
                }
            }
            if (future.isDone()) {
                left = true;
                leaveQuietly();
            }
        } catch (ResourceClosedException e) {
            left = true;
            logger.warn("Completion queue '" + name + "' was closed while its poller ran; the poller stops", e);
            close();
        } finally {
            self.helping = false;
            if (!left) {
                leaveCalling();
            }
        }
    }

    /** {@code self} took the seat: it no longer stands by, nor is it on its way. */
    private void seated(PollingThread self) {
        synchronized (threadsLock) {
            if (self.standing) {
                standingBy.remove(self);
                self.standing = false;
            }
            if (summoned == self) {
                summoned = null;
            }
        }
    }

    /**
     * On a task's thread about to do more than its task, or to wait: a seat its thread left without
     * calling anyone gets a thread at once (none more when one is on its way already).
     */
    void handOn(PollingThread self) {
        if (self.inTask && seat.get() == VACANT) {
            summon();
        }
    }

    /** How long {@code self}'s task kept it from the seat, counted once per task. */
    private void backAtSeat(PollingThread self) {
        if (!self.backAtSeat) {
            self.backAtSeat = true;
            tookNanos(System.nanoTime() - self.taskStarted);
        }
    }

    private void tookNanos(long nanos) {
        long average = taskNanos;
        taskNanos = average + (nanos - average) / 8;
    }

    /**
     * The seat's holder leaves it to run a task. While tasks have been short, nobody is woken: the
     * task's thread most likely takes the seat up again first (a thread woken for it would only
     * find it taken, or take it and wake the task's thread in turn, on a small machine at the
     * cost of a core), and should it block, the watch calls a thread after {@link
     * #WATCH_INTERVAL}. Otherwise a thread standing by is woken for it at once, or a new one
     * started, unless one is on its way.
     */
    private void vacate() {
        if (taskNanos < SHORT_TASK_NANOS) {
            leaveQuietly();
        } else {
            leaveCalling();
        }
    }

    /** The seat's holder leaves it calling a thread for it at once. */
    private void leaveCalling() {
        seat.set(VACANT);
        summon();
    }

    /** The seat's holder leaves it calling nobody: should it stay vacant, the watch calls a thread. */
    private void leaveQuietly() {
        vacantSince = System.nanoTime();
        quietVacancies++;
        boolean startWatch = !watchStarted;
        watchStarted = true;
        seat.set(VACANT);
        if (startWatch) {
            watch.start();
        } else if (watchAsleep) {
            watchAsleep = false;
            LockSupport.unpark(watch);
        }
    }

    /**
     * Every {@link #WATCH_INTERVAL} while tasks come: a seat vacant that long is given to a
     * thread standing by, and the tasks count as long from then on, so the next vacancies call a
     * thread at once.
     */
    private void watch() {
        long seen = quietVacancies;
        int quiet = 0;
        while (running) {
            if (seat.get() == VACANT && System.nanoTime() - vacantSince >= watchIntervalNanos) {
                tookNanos(Math.max(watchIntervalNanos, 8 * SHORT_TASK_NANOS)); // the average passes SHORT_TASK_NANOS at once
                summon();
            }
            long vacancies = quietVacancies;
            if (vacancies != seen) {
                seen = vacancies;
                quiet = 0;
            } else if (++quiet >= WATCH_QUIET_INTERVALS && seat.get() != VACANT) {
                watchAsleep = true;
                if (quietVacancies == seen && running) { // a vacancy after the flag was set finds it and wakes this
                    LockSupport.park(this);
                }
                watchAsleep = false;
                quiet = 0;
            }
            LockSupport.parkNanos(this, watchIntervalNanos);
        }
    }

    /** A thread standing by is woken for the vacant seat, or a new one started, unless one is on its way. */
    private void summon() {
        PollingThread next;
        boolean started = false;
        synchronized (threadsLock) {
            if (summoned != null) {
                return;
            }
            next = standingBy.poll();
            if (next != null) {
                next.standing = false;
            } else {
                next = new PollingThread(this, "rdma-cq-" + name + "-" + threads.size());
                threads.add(next);
                started = true;
            }
            summoned = next;
        }
        if (started) {
            next.start();
        } else {
            LockSupport.unpark(next);
        }
    }

    /** Parks {@code self} while the seat is held; returns at once when it is not, to try it again. */
    private void standBy(PollingThread self) {
        synchronized (threadsLock) {
            if (!self.standing) {
                standingBy.push(self);
                self.standing = true;
            }
        }
        if (seat.get() == HELD) {
            Thread.interrupted(); // an interrupt of this thread must not turn the park into a spin
            LockSupport.park(this);
        }
    }

    /** No thread polls from now on: those standing by end. */
    private void close() {
        seat.set(CLOSED);
        wakeEveryThread();
    }

    /** Unparks every thread it started, so that those standing by see the seat closed; returns them. */
    private List<PollingThread> wakeEveryThread() {
        List<PollingThread> all;
        synchronized (threadsLock) {
            all = List.copyOf(threads);
        }
        all.forEach(LockSupport::unpark);
        return all;
    }

    private void deliver(int count) {
        long ok = 0;
        for (int i = 0; i < count; i++) {
            WorkCompletion completion = batch.get(i);
            if (completion.isSuccess()) {
                ok++;
            } else {
                int status = completion.status().value();
                errorsByStatus.setRelease(status, errorsByStatus.getPlain(status) + 1);
            }
            try {
                if (!router.deliver(completion)) {
                    unrouted++;
                }
            } catch (RuntimeException e) {
                logger.error("Completion handler failed on " + completion + " of completion queue '" + name + "'", e);
            }
        }
        completions += ok;
    }
}
