package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/** Posting to one QP from several threads at once (the API serializes each queue): every message arrives once. */
class ConcurrentPostTest {

    private static final int THREADS = 4;
    private static final int PER_THREAD = 250;
    private static final int TOTAL = THREADS * PER_THREAD;

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void everyMessagePostedFromSeveralThreadsArrivesExactlyOnce() throws Exception {
        Loopback loopback = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(TOTAL, TOTAL))
                .connect(fabric.connectOptions());
        QueuePair requester = loopback.requester();
        MemoryRegion messages = fabric.region(TOTAL * 4L);
        MemoryRegion arrivals = fabric.region(TOTAL * 4L);
        for (int i = 0; i < TOTAL; i++) {
            messages.segment().setAtIndex(JAVA_INT, i, i);
            arrivals.segment().setAtIndex(JAVA_INT, i, -1);
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(i).addSge(arrivals, i * 4L, 4));
        }

        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> posters = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int first = t * PER_THREAD;
            posters.add(CompletableFuture.runAsync(() -> {
                SendWorkRequest wr = new SendWorkRequest();
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (int i = first; i < first + PER_THREAD; i++) {
                    requester.postSend(wr.reset().wrId(i).flags(EnumSet.of(SendFlag.SIGNALED))
                            .addSge(messages, i * 4L, 4));
                }
            }));
        }
        start.countDown();
        for (CompletableFuture<Void> poster : posters) {
            poster.get(LoopbackFabric.WAIT.toSeconds(), TimeUnit.SECONDS);
        }

        List<Completion> sent = awaitAll(loopback.requesterCq());
        List<Completion> received = awaitAll(loopback.responderCq());
        assertThat(sent).extracting(Completion::wrId).doesNotHaveDuplicates().hasSize(TOTAL);
        assertThat(received).allSatisfy(c -> assertThat(c.byteLength()).isEqualTo(4));
        List<Integer> delivered = IntStream.range(0, TOTAL).map(i -> arrivals.segment().getAtIndex(JAVA_INT, i))
                .boxed().toList();
        assertThat(delivered).containsExactlyInAnyOrderElementsOf(IntStream.range(0, TOTAL).boxed().toList());
        assertThat(requester.outstandingSends()).isZero();
    }

    private static List<Completion> awaitAll(CompletionQueue cq) {
        List<Completion> completions = Completions.await(cq, TOTAL);
        assertThat(completions).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.SUCCESS));
        return completions;
    }
}
