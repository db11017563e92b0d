package io.rdma.spring.completion;

import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.resource.CompletionMode;
import io.rdma.spring.resource.CompletionPolling;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-over of {@link PollerHandOff} on a {@link CompletionPoller} of its own, over the
 * simulated fabric's loopback pair: the server's receive completions reach a handler that records
 * the thread each came in on and may hand a task over. What it must hold: a task runs on the
 * thread that polled its message, after the batch; the CQ is polled by another thread while a
 * task blocks (called by the watch when tasks were short, at once when they were long); a task
 * that waits for a completion while nobody polls polls for it itself (no longer than the CQ's
 * mode has it spin), and one that hands on has another thread poll at once; an interrupt a task leaves
 * stops nothing; a stop leaves no thread polling, and a blocked task's thread ends with its task.
 */
class PollerHandOffTests {

    private static final long WAIT_SECONDS = 10;
    /** A watch that never calls anyone within a test: only what the tasks did shows. */
    private static final Duration NO_WATCH = Duration.ofHours(1);
    private static final AtomicInteger POLLERS = new AtomicInteger();

    private final SimulatedLoopback loop = new SimulatedLoopback();
    private final CompletionRouter router = new CompletionRouter();
    /** The threads the server's messages were delivered on, in order. */
    private final BlockingQueue<Thread> deliveredOn = new LinkedBlockingQueue<>();
    private volatile Runnable taskForNextMessage;
    private volatile boolean lastHandOffAccepted;
    /** The poller's name, and so its threads': its own in each test, as other tests' threads may still be ending. */
    private final String name = "hand-off-" + POLLERS.incrementAndGet();
    private CompletionPoller poller;

    @AfterEach
    void close() throws InterruptedException {
        if (poller != null && poller.isPolling()) {
            poller.stop();
        }
        loop.close();
    }

    @Test
    void aTaskRunsOnTheThreadThatPolledItsMessageWhileTheWatchGivesThePollingToAnotherOnceItBlocks()
            throws Exception {
        start(Duration.ofMillis(1));
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        taskForNextMessage = () -> {
            ranOn.set(Thread.currentThread());
            await(release);
        };

        send(1);
        Thread first = deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(lastHandOffAccepted).as("the hand-over was accepted on the polling thread").isTrue();
        send(2);
        Thread second = deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS);

        assertThat(ranOn.get()).as("the task's thread").isSameAs(first);
        assertThat(second).as("the thread that polled while the task blocked").isNotNull().isNotSameAs(first);
        assertThat(second.getName()).startsWith("rdma-cq-" + name + "-");
        assertThat(PollerHandOff.runAfterBatch(ignored -> { }, "a task")).as("off a polling thread").isFalse();
        release.countDown();
    }

    @Test
    void aTaskThatWaitsForACompletionWhileNobodyPollsPollsForItItself() throws Exception {
        start(NO_WATCH);
        CompletableFuture<Thread> sent = new CompletableFuture<>();
        router.routeSends(loop.server(), completion -> sent.complete(Thread.currentThread()));
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        taskForNextMessage = () -> {
            ranOn.set(Thread.currentThread());
            PooledBuffer reply = loop.serverBuffers().lease();
            loop.server().postSend(new SendWorkRequest().wrId(9).flags(EnumSet.of(SendFlag.SIGNALED))
                    .addSge(reply, 0, 8).opcode(SendOpcode.SEND));
            PollerHandOff.pollWhileWaiting(sent, Long.MAX_VALUE);
            sent.join();
            reply.close();
        };
        postReceive(loop.client());

        send(1);

        assertThat(sent.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("the thread that took the send's completion")
                .isSameAs(ranOn.get()).isSameAs(deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS));
        send(2);
        assertThat(deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS))
                .as("the thread that polls on after its task, the seat having stayed with it").isSameAs(ranOn.get());
    }

    @Test
    void afterALongTaskTheNextHandOverCallsAnotherThreadAtOnce() throws Exception {
        start(NO_WATCH);
        CountDownLatch longTaskStarted = new CountDownLatch(1);
        taskForNextMessage = () -> {
            longTaskStarted.countDown();
            sleep(100);
        };
        send(1);
        Thread first = deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        await(longTaskStarted);
        send(2); // the seat was left without calling anyone, tasks having been short so far: this waits for the task
        assertThat(deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS)).as("polled after the long task, by its thread")
                .isSameAs(first);

        CountDownLatch release = new CountDownLatch(1);
        taskForNextMessage = () -> await(release);
        send(3);
        assertThat(deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isSameAs(first);
        send(4);
        Thread fourth = deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS);

        assertThat(fourth).as("polled while the next task blocks, no watch needed").isNotNull().isNotSameAs(first);
        release.countDown();
    }

    /**
     * A reply's send that waits out an RC retry, or for room, completes late: its task's thread
     * stops polling where the CQ's own polling thread would stop spinning, after the poll window
     * in adaptive mode and at once in event mode, parks, and another thread polls (no watch needed).
     */
    @ParameterizedTest
    @EnumSource(names = {"ADAPTIVE", "EVENT"})
    void aTaskWaitingForAFutureThatCompletesLatePollsNoLongerThanTheModeSpinsThenParks(CompletionMode mode)
            throws Exception {
        start(mode, Duration.ofMillis(20), NO_WATCH);
        CompletableFuture<Void> late = new CompletableFuture<>();
        taskForNextMessage = () -> {
            PollerHandOff.pollWhileWaiting(late, Long.MAX_VALUE);
            late.join();
        };
        send(1);
        Thread first = deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(first).isNotNull();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (first.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            sleep(1);
        }
        assertThat(first.getState()).as("the waiting task's thread, parked").isEqualTo(Thread.State.WAITING);
        send(2);
        assertThat(deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS)).as("the thread that polls while the task waits")
                .isNotNull().isNotSameAs(first);
        late.complete(null);
    }

    /**
     * A wait with a timeout (a caller's {@code get(timeout)}) polls no longer than that, though
     * the CQ's mode would have it spin on: then another thread polls (no watch needed).
     */
    @Test
    void aTaskWaitingWithATimeoutPollsNoLongerThanTheTimeout() throws Exception {
        start(NO_WATCH);
        CompletableFuture<Void> never = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Long> polledNanos = new CompletableFuture<>();
        taskForNextMessage = () -> {
            long start = System.nanoTime();
            PollerHandOff.pollWhileWaiting(never, TimeUnit.MILLISECONDS.toNanos(20));
            polledNanos.complete(System.nanoTime() - start);
            await(release);
        };
        send(1);
        Thread first = deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS);

        assertThat(polledNanos.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("how long the task's thread polled")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        send(2);
        assertThat(deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS)).as("the thread that polls after the timeout")
                .isNotNull().isNotSameAs(first);
        release.countDown();
    }

    /** What a listener's thread does before it runs the next message of a backlog, which may block. */
    @Test
    void aTaskThatHandsOnHasAnotherThreadPollAtOnceThoughTasksWereShort() throws Exception {
        start(NO_WATCH);
        CountDownLatch release = new CountDownLatch(1);
        taskForNextMessage = () -> {
            PollerHandOff.handOn();
            await(release);
        };
        send(1);
        Thread first = deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS);

        send(2);

        assertThat(deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS)).as("polled while the task blocks, no watch")
                .isNotNull().isNotSameAs(first);
        release.countDown();
    }

    /** Sleeping on the CQ's channel, where an interrupt left by a task would end the wait of the thread's next poll. */
    @Test
    void aTaskThatLeavesItsThreadInterruptedStopsNoPolling() throws Exception {
        start(CompletionMode.EVENT, NO_WATCH);
        taskForNextMessage = () -> Thread.currentThread().interrupt();
        send(1);
        Thread first = deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS);

        send(2);

        assertThat(deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS)).as("the next message's thread").isSameAs(first);
        assertThat(poller.isPolling()).isTrue();
    }

    @Test
    void aStopLeavesNoThreadPollingAndABlockedTasksThreadEndsWithItsTask() throws Exception {
        start(Duration.ofMillis(1));
        CountDownLatch release = new CountDownLatch(1);
        taskForNextMessage = () -> await(release);
        send(1);
        Thread taskThread = deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        send(2);
        assertThat(deliveredOn.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();

        poller.stop();

        assertThat(poller.isPolling()).isFalse();
        List<Thread> others = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("rdma-cq-" + name) && thread != taskThread).toList();
        assertThat(others).as("the poller's threads but the blocked task's").isEmpty();
        assertThat(taskThread.isAlive()).isTrue();
        release.countDown();
        taskThread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(taskThread.isAlive()).as("the task's thread after its task").isFalse();
    }

    private void start(Duration watchInterval) {
        start(CompletionMode.POLLING, watchInterval);
    }

    private void start(CompletionMode mode, Duration watchInterval) {
        start(mode, Duration.ZERO, watchInterval);
    }

    private void start(CompletionMode mode, Duration pollWindow, Duration watchInterval) {
        for (int i = 0; i < 8; i++) {
            postReceive(loop.server());
        }
        router.routeReceives(loop.server(), completion -> {
            Runnable task = taskForNextMessage;
            taskForNextMessage = null;
            lastHandOffAccepted = task != null && PollerHandOff.runAfterBatch(Runnable::run, task);
            deliveredOn.add(Thread.currentThread());
        });
        poller = new CompletionPoller(name, loop.completionQueue(),
                new CompletionPolling(mode, pollWindow, 16), router, watchInterval);
        poller.start();
    }

    private void postReceive(QueuePair qp) {
        PooledBuffer buffer = (qp == loop.server() ? loop.serverBuffers() : loop.clientBuffers()).lease();
        qp.postReceive(new ReceiveWorkRequest().wrId(buffer.index()).addSge(buffer, 0, buffer.capacity()));
    }

    /** An unsignaled send from the client: only the server's receive completes on the CQ. */
    private void send(int wrId) {
        PooledBuffer message = loop.clientBuffers().lease();
        loop.client().postSend(new SendWorkRequest().wrId(wrId).addSge(message, 0, 8).opcode(SendOpcode.SEND));
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
