package io.rdma.spring.completion;

import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.ResourceLifecycleRecorder;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.WorkCompletion;

import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class CompletionPollersTests {

    private static final String CQ = RdmaContextRunners.DEVICE_PROPERTY + ".completion-queues.cq";
    private static final String PD = RdmaContextRunners.DEVICE_PROPERTY + ".protection-domains.pd0";

    /**
     * Two RC QPs connected to each other; their completions go through the pollers in every mode,
     * and closing the context waits until the flush of the receive still posted was polled.
     */
    @ParameterizedTest
    @ValueSource(strings = {"polling", "event", "adaptive"})
    void deliversCompletionsAndFlushesWhatIsPostedWhenTheContextCloses(String mode) {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.CONNECTING_BY_MODIFY_QP);
        List<String> receives = new CopyOnWriteArrayList<>();
        List<CompletionStatus> sends = new CopyOnWriteArrayList<>();
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        AtomicReference<QueuePair> receiver = new AtomicReference<>();
        RdmaContextRunners.runner().withBean(ResourceLifecycleRecorder.class, () -> recorder).withPropertyValues(
                CQ + ".mode=" + mode, CQ + ".entries=64",
                PD + ".memory-pools.buffers.count=8", PD + ".memory-pools.buffers.buffer-size=1KiB",
                PD + ".queue-pairs.a.max-send-wr=8", PD + ".queue-pairs.a.max-recv-wr=8",
                PD + ".queue-pairs.b.max-send-wr=8", PD + ".queue-pairs.b.max-recv-wr=8").run(context -> {
            assertThat(context).hasNotFailed();
            QueuePair a = context.getBean("a", QueuePair.class);
            QueuePair b = context.getBean("b", QueuePair.class);
            receiver.set(b);
            MemoryPool pool = context.getBean("buffers", MemoryPool.class);
            CompletionRouter router = context.getBean(CompletionRouter.class);
            router.routeSends(a, completion -> sends.add(completion.status()));
            router.routeReceives(b, completion -> receives.add(describe(completion)));
            ConnectOptions options = ConnectOptions.builder().gidIndex(RdmaContextRunners.GID_INDEX).build();
            a.connect(b.localEndpoint(options), options);
            b.connect(a.localEndpoint(options), options);

            PooledBuffer target = pool.lease();
            b.postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, target.capacity()));
            PooledBuffer spare = pool.lease();
            b.postReceive(new ReceiveWorkRequest().wrId(2).addSge(spare, 0, spare.capacity()));
            PooledBuffer message = pool.lease();
            message.segment().setString(0, "hello");
            a.postSend(new SendWorkRequest().wrId(7).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(message, 0, 6)
                    .immediateData(42)
                    .opcode(io.rdma.verbs.api.SendOpcode.SEND_WITH_IMM));

            await().until(() -> receives.size() == 1 && sends.size() == 1);
            assertThat(receives).containsExactly("1 SUCCESS 6");
            assertThat(sends).containsExactly(CompletionStatus.SUCCESS);
            assertThat(target.segment().getString(0)).isEqualTo("hello");
            CompletionPoller poller = context.getBean(CompletionPollers.class).poller("cq").orElseThrow();
            assertThat(poller.completions()).isEqualTo(2);
            assertThat(poller.thread().getName()).isEqualTo("rdma-cq-cq");
            assertThat(poller.thread().isVirtual()).isFalse();
        });
        // Receive 2 was still posted when the context closed: the shutdown flushed it to its handler.
        assertThat(receives).containsExactly("1 SUCCESS 6", "2 WR_FLUSH_ERR 0");
        assertThat(receiver.get().outstandingReceives()).as("receives posted and not polled when the pollers stopped")
                .isZero();
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * A poller that backs off parks once its spins and yields are spent with the queue empty, and
     * still takes the next completion; one that spins never parks. In 'polling' mode, and in
     * 'adaptive' within its poll window (long here, so it never sleeps on events).
     */
    @ParameterizedTest
    @ValueSource(strings = {"polling", "adaptive"})
    void aPollerThatBacksOffParksWhileTheQueueIsEmptyAndTakesTheNextCompletion(String mode) {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.CONNECTING_BY_MODIFY_QP);
        List<String> receives = new CopyOnWriteArrayList<>();
        RdmaContextRunners.runner().withPropertyValues(
                CQ + ".mode=" + mode, CQ + ".poll-window=1h", CQ + ".entries=64",
                CQ + ".idle=backoff", CQ + ".idle-spins=10", CQ + ".idle-yields=10",
                CQ + ".idle-min-park=10us", CQ + ".idle-max-park=5ms",
                PD + ".memory-pools.buffers.count=8", PD + ".memory-pools.buffers.buffer-size=1KiB",
                PD + ".queue-pairs.a.max-send-wr=8", PD + ".queue-pairs.a.max-recv-wr=8",
                PD + ".queue-pairs.b.max-send-wr=8", PD + ".queue-pairs.b.max-recv-wr=8").run(context -> {
            assertThat(context).hasNotFailed();
            QueuePair a = context.getBean("a", QueuePair.class);
            QueuePair b = context.getBean("b", QueuePair.class);
            MemoryPool pool = context.getBean("buffers", MemoryPool.class);
            context.getBean(CompletionRouter.class).routeReceives(b, completion -> receives.add(describe(completion)));
            ConnectOptions options = ConnectOptions.builder().gidIndex(RdmaContextRunners.GID_INDEX).build();
            a.connect(b.localEndpoint(options), options);
            b.connect(a.localEndpoint(options), options);
            PooledBuffer target = pool.lease();
            b.postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, target.capacity()));
            Thread poller = context.getBean(CompletionPollers.class).poller("cq").orElseThrow().thread();

            await().until(() -> poller.getState() == Thread.State.TIMED_WAITING);
            PooledBuffer message = pool.lease();
            a.postSend(new SendWorkRequest().wrId(7).addSge(message, 0, 6));
            await().until(() -> receives.size() == 1);
            assertThat(receives).containsExactly("1 SUCCESS 6");
        });
        RdmaContextRunners.runner().withPropertyValues(CQ + ".mode=" + mode, CQ + ".poll-window=1h",
                CQ + ".idle=spin").run(context -> {
            assertThat(context).hasNotFailed();
            Thread poller = context.getBean(CompletionPollers.class).poller("cq").orElseThrow().thread();
            for (int look = 0; look < 200; look++) {
                assertThat(poller.getState()).as("a spinning poller's state").isNotEqualTo(Thread.State.TIMED_WAITING);
                Thread.sleep(1);
            }
        });
    }

    private static String describe(WorkCompletion completion) {
        return completion.wrId() + " " + completion.status() + " "
                + (completion.isSuccess() ? completion.byteLength() : 0);
    }
}
