package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** A registered region sliced into leasable buffers: distinct, bounded, returned once. */
class MemoryPoolTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void leasesHandOutEveryBufferOnceThenRunOut() {
        MemoryPool pool = fabric.pd().createMemoryPool(256, 8, LoopbackFabric.ALL_ACCESS);
        List<PooledBuffer> leased = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            leased.add(pool.lease());
        }

        assertThat(leased).extracting(PooledBuffer::index).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(leased).allSatisfy(buffer -> {
            assertThat(buffer.capacity()).isEqualTo(256);
            assertThat(buffer.lkey()).isEqualTo(pool.lkey());
            assertThat(buffer.pool()).isSameAs(pool);
            assertThat(pool.buffer(buffer.index())).isSameAs(buffer);
        });
        assertThat(leased).extracting(PooledBuffer::address).doesNotHaveDuplicates()
                .allSatisfy(address -> assertThat((address - pool.remote().address()) % 256).isZero());
        assertThat(pool.leasedCount()).isEqualTo(8);
        assertThat(pool.tryLease()).isNull();
        VerbsErrors.expectFailure("memory pool lease", Errno.ENOMEM, pool::lease);
    }

    @Test
    void returnedBufferIsLeasedAgainAndCannotBeReturnedTwice() {
        MemoryPool pool = fabric.pd().createMemoryPool(64, 1, LoopbackFabric.ALL_ACCESS);
        PooledBuffer only = pool.lease();

        only.close();
        assertThat(pool.leasedCount()).isZero();
        assertThatIllegalStateException().isThrownBy(only::close).withMessageContaining("returned twice");

        assertThat(pool.lease()).isSameAs(only);
        assertThat(pool.tryLease()).isNull();
    }

    @Test
    void pooledBuffersCarryTraffic() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryPool pool = fabric.pd().createMemoryPool(512, 4, LoopbackFabric.ALL_ACCESS);
        PooledBuffer outgoing = pool.lease();
        PooledBuffer incoming = pool.lease();
        Payloads.fill(outgoing.segment(), 0, 300, 110);

        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(incoming.index())
                .addSge(incoming, 0, incoming.capacity()));
        loopback.requester().postSend(new SendWorkRequest().wrId(outgoing.index())
                .flags(EnumSet.of(SendFlag.SIGNALED)).addSge(outgoing, 0, 300));

        Completion sent = Completions.awaitOne(loopback.requesterCq());
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(sent.status()).isEqualTo(CompletionStatus.SUCCESS);
        pool.buffer((int) sent.wrId()).close();
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.byteLength()).isEqualTo(300);
        PooledBuffer arrived = pool.buffer((int) received.wrId());
        Payloads.assertFilled(arrived.segment(), 0, 300, 110);
        arrived.close();
        assertThat(pool.leasedCount()).isZero();
    }

    @Test
    void concurrentLeasesNeverShareABuffer() throws Exception {
        int threads = 4;
        int rounds = 20_000;
        MemoryPool pool = fabric.pd().createMemoryPool(64, 8, LoopbackFabric.ALL_ACCESS);
        AtomicIntegerArray holders = new AtomicIntegerArray(pool.capacity());
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Integer>> workers = new ArrayList<>();
        for (int t = 1; t <= threads; t++) {
            int me = t;
            workers.add(CompletableFuture.supplyAsync(() -> {
                awaitQuietly(start);
                int conflicts = 0;
                for (int i = 0; i < rounds; i++) {
                    PooledBuffer buffer = pool.tryLease();
                    if (buffer == null) {
                        continue;
                    }
                    if (!holders.compareAndSet(buffer.index(), 0, me)) {
                        conflicts++;
                    }
                    holders.compareAndSet(buffer.index(), me, 0);
                    buffer.close();
                }
                return conflicts;
            }));
        }
        start.countDown();

        int conflicts = 0;
        for (CompletableFuture<Integer> worker : workers) {
            conflicts += worker.get(LoopbackFabric.WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(conflicts).as("leases of a buffer another thread held").isZero();
        assertThat(pool.leasedCount()).isZero();
        Set<Integer> all = new HashSet<>();
        for (int i = 0; i < pool.capacity(); i++) {
            all.add(pool.lease().index());
        }
        assertThat(all).hasSize(pool.capacity());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
