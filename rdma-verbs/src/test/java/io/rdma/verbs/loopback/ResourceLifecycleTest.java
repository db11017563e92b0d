package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AddressHandle;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionChannel;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.ConnectionListener;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.Device;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.FlowCounters;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.SharedReceiveQueue;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.VerbsResource;
import io.rdma.verbs.provider.simulated.FabricControl;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Lifetimes: a closed resource refuses every use with {@link ResourceClosedException} (never
 * a crash in freed memory), and closing a parent first closes what depends on it (pyverbs).
 */
class ResourceLifecycleTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    /** A resource and a use of it that must be refused once it is closed. */
    private record Subject(VerbsResource resource, ThrowingCallable use) {
    }

    @ParameterizedTest
    @EnumSource(value = ResourceKind.class, mode = EnumSource.Mode.EXCLUDE, names = {"FLOW", "CONNECTION"})
    void closedResourceRefusesUse(ResourceKind kind) {
        Subject subject = create(kind);
        // A pool is one registered region to the provider.
        ResourceKind counted = kind == ResourceKind.MEMORY_POOL ? ResourceKind.MEMORY_REGION : kind;
        long liveBefore = fabric.verbs().liveObjects().get(counted);

        subject.resource().close();
        subject.resource().close();

        assertThat(subject.resource().isClosed()).isTrue();
        assertThatExceptionOfType(ResourceClosedException.class).isThrownBy(subject.use())
                .withMessageContaining("is closed");
        assertThat(fabric.verbs().liveObjects().get(counted)).isEqualTo(liveBefore - 1);
    }

    private Subject create(ResourceKind kind) {
        DeviceContext context = fabric.context();
        return switch (kind) {
            case CONNECTION_LISTENER -> {
                ConnectionListener listener = ConnectionManager.of(context)
                        .listen(new InetSocketAddress("0.0.0.0", 0), 1);
                QueuePair qp = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(8), null,
                        LoopbackFabric.DEFAULT_CAPABILITIES);
                yield new Subject(listener, () -> listener.accept(qp, new byte[0], Duration.ofMillis(1)));
            }
            case CONNECTION -> throw new IllegalArgumentException("ConnectionManagerTest covers connections");
            case QUEUE_PAIR -> {
                QueuePair qp = fabric.connectedPair(QueuePairType.RC).requester();
                MemoryRegion buffer = fabric.region(64);
                yield new Subject(qp, () -> qp.postSend(new SendWorkRequest().flags(EnumSet.of(SendFlag.SIGNALED))
                        .addSge(buffer, 0, 8)));
            }
            case SHARED_RECEIVE_QUEUE -> {
                SharedReceiveQueue srq = fabric.pd().createSharedReceiveQueue(SharedReceiveQueueAttributes.of(8, 0));
                MemoryRegion buffer = fabric.region(64);
                yield new Subject(srq, () -> srq.postReceive(new ReceiveWorkRequest().addSge(buffer, 0, 64)));
            }
            case ADDRESS_HANDLE -> {
                Loopback datagrams = fabric.connectedPair(QueuePairType.UD);
                AddressHandle ah = fabric.pd().createAddressHandle(datagrams.responder()
                        .localEndpoint(fabric.connectOptions())
                        .addressVector(fabric.connectOptions()));
                MemoryRegion buffer = fabric.region(64);
                yield new Subject(ah, () -> datagrams.requester()
                        .postSend(new SendWorkRequest().flags(EnumSet.of(SendFlag.SIGNALED)).addSge(buffer, 0, 8)
                        .datagram(ah, datagrams.responder().qpNumber(), fabric.connectOptions().qkey())));
            }
            case COMPLETION_QUEUE -> {
                CompletionQueue cq = fabric.completionQueue(8);
                yield new Subject(cq, () -> cq.poll(new CompletionBatch(1)));
            }
            case COMPLETION_CHANNEL -> {
                CompletionChannel channel = context.createCompletionChannel();
                yield new Subject(channel, () -> channel.awaitEvent(Duration.ofMillis(1)));
            }
            case COMPLETION_COUNTER -> {
                assumeTrue(fabric.deviceAttributes().supportsCompletionCounters(), "no completion counters");
                CompletionCounter counter = context.createCompletionCounter();
                yield new Subject(counter, counter::completions);
            }
            case FLOW_COUNTERS -> {
                assumeTrue(fabric.deviceAttributes().flowCounters(), "no flow counters");
                FlowCounters counters = context.createFlowCounters();
                yield new Subject(counters, counters::read);
            }
            case MEMORY_POOL -> {
                MemoryPool pool = fabric.pd().createMemoryPool(256, 4, LoopbackFabric.ALL_ACCESS);
                yield new Subject(pool, pool::tryLease);
            }
            case MEMORY_REGION -> {
                MemoryRegion region = fabric.region(64);
                yield new Subject(region, region::segment);
            }
            case PROTECTION_DOMAIN -> {
                ProtectionDomain pd = context.allocateProtectionDomain();
                yield new Subject(pd, () -> pd.allocateMemory(64, LoopbackFabric.ALL_ACCESS));
            }
            case DEVICE_CONTEXT -> new Subject(context, context::allocateProtectionDomain);
            case FLOW -> throw new IllegalArgumentException("a flow has no use to refuse after close");
        };
    }

    @Test
    void closingAProtectionDomainClosesWhatLivesInItFirst() {
        CompletionQueue cq = fabric.completionQueue(16);
        ProtectionDomain pd = fabric.context().allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, LoopbackFabric.ALL_ACCESS);
        MemoryPool pool = pd.createMemoryPool(128, 4, LoopbackFabric.ALL_ACCESS);
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueAttributes.of(8, 0));
        QueuePair qp = pd.createQueuePair(QueuePairOptions
                .of(QueuePairType.RC, cq, LoopbackFabric.DEFAULT_CAPABILITIES).withSrq(srq));
        assertThat(pd.dependents()).contains(region, pool, srq, qp);

        pd.close();

        assertThat(List.of(qp, srq, pool, region, pd)).allSatisfy(r -> assertThat(r.isClosed()).as(r.kind().name())
                .isTrue());
        assertThat(cq.isClosed()).as("the CQ belongs to the context, not the PD").isFalse();
        assertThat(fabric.verbs().liveObjects()).containsEntry(ResourceKind.QUEUE_PAIR, 0L)
                .containsEntry(ResourceKind.SHARED_RECEIVE_QUEUE, 0L).containsEntry(ResourceKind.MEMORY_REGION, 0L)
                .containsEntry(ResourceKind.MEMORY_POOL, 0L).containsEntry(ResourceKind.PROTECTION_DOMAIN, 0L)
                .containsEntry(ResourceKind.COMPLETION_QUEUE, 1L);
        assertThat(cq.poll(new CompletionBatch(1))).isZero();
    }

    @Test
    void closingAQueuePairLeavesItsQueuesAndProtectionDomainOpen() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);

        loopback.requester().close();

        assertThat(loopback.requesterCq().isClosed()).isFalse();
        assertThat(loopback.requester().protectionDomain().isClosed()).isFalse();
        assertThat(loopback.responder().isClosed()).isFalse();
        assertThat(fabric.verbs().liveObjects()).containsEntry(ResourceKind.QUEUE_PAIR, 1L);
    }

    @Test
    void closingTheContextClosesEverythingItCreated() {
        DeviceContext context = fabric.context();
        List<VerbsResource> created = new ArrayList<>();
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        created.addAll(List.of(loopback.requester(), loopback.responder(), loopback.requesterCq(),
                loopback.responderCq(), fabric.pd(), fabric.region(4096), context.createCompletionChannel(),
                fabric.pd().createMemoryPool(64, 4, LoopbackFabric.ALL_ACCESS),
                fabric.pd().createSharedReceiveQueue(SharedReceiveQueueAttributes.of(8, 0))));
        if (fabric.deviceAttributes().supportsCompletionCounters()) {
            QueuePair attached = fabric.pair(QueuePairType.RC).requester();
            CompletionCounter counter = context.createCompletionCounter();
            attached.attachCompletionCounter(counter, Set.of(fabric.deviceAttributes()
                    .supportedCompletionCounterOps().iterator().next()));
            created.addAll(List.of(attached, counter));
        }
        if (fabric.deviceAttributes().flowCounters()) {
            created.add(context.createFlowCounters());
        }
        assertThat(context.openResources().values().stream().mapToLong(Long::longValue).sum())
                .isGreaterThan(created.size());

        context.close();

        assertThat(created).allSatisfy(r -> assertThat(r.isClosed()).as(r.toString()).isTrue());
        assertThat(context.isClosed()).isTrue();
        assertThat(fabric.verbs().liveObjects().values()).containsOnly(0L);
        assertThatExceptionOfType(ResourceClosedException.class).isThrownBy(context::queryDevice);
    }

    @Test
    void resourcesOfAnotherContextCannotBeCombined() {
        CompletionQueue cq = fabric.completionQueue(8);
        DeviceContext second = fabric.verbs().devices().getFirst().open();
        try {
            ProtectionDomain foreignPd = second.allocateProtectionDomain();
            VerbsErrors.expectFailure("ibv_create_qp", Errno.EINVAL,
                    () -> foreignPd.createQueuePair(QueuePairOptions
                            .of(QueuePairType.RC, cq, LoopbackFabric.DEFAULT_CAPABILITIES)));
        } finally {
            second.close();
        }
        assertThat(second.isClosed()).isTrue();
    }

    @Test
    void aDeviceOfAClosedListOpensNothing() {
        Verbs verbs = fabric.verbs();
        Device device = fabric.context().device();
        verbs.close();

        assertThatExceptionOfType(ResourceClosedException.class).isThrownBy(device::open);

        assertThat(verbs.liveObjects()).as("objects the provider holds after the refused open")
                .allSatisfy((kind, count) -> assertThat(count).as(kind.name()).isZero());
    }

    @Test
    void aDependentThatFailsToCloseLeavesNeitherItsSiblingsNorItsParentsOpen() {
        // a device of its own: the CQ the provider refuses to destroy stays in its census
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED)) {
            DeviceContext context = verbs.devices().getFirst().open();
            CompletionChannel channel = context.createCompletionChannel();
            CompletionQueue older = context.createCompletionQueue(CompletionQueueOptions.of(8).withChannel(channel));
            CompletionQueue newer = context.createCompletionQueue(CompletionQueueOptions.of(8).withChannel(channel));
            ProtectionDomain pd = context.allocateProtectionDomain();
            verbs.extension(FabricControl.class).orElseThrow()
                    .failNextVerb(context.deviceName(), "ibv_destroy_cq", Errno.EIO);

            // newest first: the newer CQ is refused, the older one and everything else still go
            VerbsException failure = VerbsErrors.expectFailure("ibv_destroy_cq", Errno.EIO, context::close);

            assertThat(failure.getSuppressed()).isEmpty();
            assertThat(List.of(newer, older, channel, pd, context)).allSatisfy(
                    resource -> assertThat(resource.isClosed()).as(resource.toString()).isTrue());
            assertThat(context.openResources()).allSatisfy((kind, count) -> assertThat(count).as(kind.name())
                    .isZero());
            assertThatExceptionOfType(ResourceClosedException.class)
                    .isThrownBy(() -> newer.poll(new CompletionBatch(1)));
        }
    }

    @Test
    void aResourceWhoseOwnDestroyIsRefusedStaysOpenForAnotherTry() {
        FabricControl control = fabric.fabricControl();
        CompletionQueue cq = fabric.completionQueue(8);
        control.failNextVerb(fabric.deviceName(), "ibv_destroy_cq", Errno.EIO);

        VerbsErrors.expectFailure("ibv_destroy_cq", Errno.EIO, cq::close);

        assertThat(cq.isClosed()).isFalse();
        cq.close();
        assertThat(cq.isClosed()).isTrue();
    }
}
