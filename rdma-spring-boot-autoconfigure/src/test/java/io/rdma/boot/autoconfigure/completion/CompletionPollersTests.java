package io.rdma.spring.completion;

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

    private static String describe(WorkCompletion completion) {
        return completion.wrId() + " " + completion.status() + " "
                + (completion.isSuccess() ? completion.byteLength() : 0);
    }
}
