package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionChannel;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.PhysicalPortState;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The native provider on a real device (Soft-RoCE's rxe0 in the guest of
 * {@code rdma-verbs/softroce/}): two RC QPs of one context connected to each other, then
 * send/receive, RDMA write and read, completion events, software completion counters,
 * flow counters and port counters. Skipped where no native device exists (a host kernel
 * without RDMA support reports ENOSYS).
 */
class NativeRxeLoopbackTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Set<AccessFlag> ALL_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ);

    private Verbs verbs;
    private DeviceContext context;
    private ConnectOptions connectOptions;

    @BeforeEach
    void open() {
        assumeTrue(new NativeVerbsProvider().availability().deviceCount() > 0,
                () -> "no native RDMA device: " + new NativeVerbsProvider().availability().reason());
        verbs = Verbs.open(ProviderKind.NATIVE);
        context = verbs.devices().getFirst().open();
        PortAttributes port = context.queryPort(1);
        // RoCE needs a GRH; rxe's GID 1 is the IPv4-mapped address of its netdev (RoCE v2)
        int gidIndex = port.linkLayer() == LinkLayer.ETHERNET ? Integer.getInteger("rdma.gidIndex", 1) : 0;
        connectOptions = ConnectOptions.builder().gidIndex(gidIndex).pathMtu(port.activeMtu()).build();
    }

    @AfterEach
    void close() {
        if (verbs != null) {
            verbs.close();
            assertThat(verbs.liveObjects().values()).as("native objects left behind").containsOnly(0L);
        }
    }

    /** Two RC QPs on one CQ each, connected to each other. */
    private record Pair(QueuePair a, QueuePair b, CompletionQueue cqA, CompletionQueue cqB) {
    }

    private Pair connectedPair(ProtectionDomain pd, CompletionQueueOptions cqOptions) {
        CompletionQueue cqA = context.createCompletionQueue(cqOptions);
        CompletionQueue cqB = context.createCompletionQueue(CompletionQueueOptions.of(64));
        QueuePairCapabilities caps = QueuePairCapabilities.of(16, 16).withInlineData(64);
        QueuePair a = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cqA, caps));
        QueuePair b = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cqB, caps));
        connect(a, b);
        return new Pair(a, b, cqA, cqB);
    }

    private void connect(QueuePair a, QueuePair b) {
        ConnectOptions optionsA = connectOptions.toBuilder().sendPsn(100).build();
        ConnectOptions optionsB = connectOptions.toBuilder().sendPsn(200).build();
        a.connect(b.localEndpoint(optionsB), optionsA);
        b.connect(a.localEndpoint(optionsA), optionsB);
    }

    private static WorkCompletion awaitOne(CompletionQueue cq, CompletionBatch batch) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.poll(batch) > 0) {
                assertThat(batch.size()).isEqualTo(1);
                return batch.get(0);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within " + WAIT);
    }

    @Test
    void queriesTheDevice() {
        var attributes = context.queryDevice();
        assertThat(attributes.maxQp()).isPositive();
        assertThat(attributes.physicalPortCount()).isPositive();
        PortAttributes port = context.queryPort(1);
        assertThat(port.state()).isNotNull();
        if (port.linkLayer() == LinkLayer.ETHERNET) {
            assertThat(context.queryGid(1, connectOptions.gidIndex()).isZero()).isFalse();
        }
        PortCounters counters = context.portCounters(1);
        if (context.deviceName().startsWith("rxe")) {
            // rxe counts in hw_counters/ under its own names (Debian 12's kernel adds the PMA set in counters/)
            assertThat(counters.hardwareCounters()).as("hw_counters/ of %s", context.deviceName())
                    .containsKeys("sent_pkts", "rcvd_pkts");
        } else {
            assertThat(counters.hardwareCounters().size() + counters.counters().size())
                    .as("sysfs counters of %s", context.deviceName()).isPositive();
        }
        if (port.isActive()) {
            assertThat(port.physicalState()).as("phys_state of an ACTIVE port").isEqualTo(PhysicalPortState.LINK_UP);
        }
        assertThat(port.rateBytesPerSecond()).as("rate of %s port 1", context.deviceName()).isPositive();
        assertThatThrownBy(() -> context.queryGid(1, 100_000)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("ibv_query_gid");
    }

    @Test
    void sendReceiveWriteAndReadBetweenTwoConnectedQueuePairs() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion local = pd.allocateMemory(4096, ALL_ACCESS);
        MemoryRegion remote = pd.allocateMemory(4096, ALL_ACCESS);
        Pair pair = connectedPair(pd, CompletionQueueOptions.of(64));
        CompletionBatch batch = new CompletionBatch(4);

        // send/receive with immediate
        pair.b().postReceive(new ReceiveWorkRequest().wrId(7).addSge(remote, 0, 256));
        local.segment().setString(0, "hello rxe");
        pair.a().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.SEND_WITH_IMM).immediateData(0x1234)
                .addSge(local, 0, 64));
        WorkCompletion sent = awaitOne(pair.cqA(), batch);
        assertThat(sent.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(sent.opcode()).isEqualTo(CompletionOpcode.SEND);
        assertThat(sent.wrId()).isEqualTo(1);
        WorkCompletion received = awaitOne(pair.cqB(), batch);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.opcode()).isEqualTo(CompletionOpcode.RECV);
        assertThat(received.wrId()).isEqualTo(7);
        assertThat(received.byteLength()).isEqualTo(64);
        assertThat(received.hasImmediateData()).isTrue();
        assertThat(received.immediateData()).isEqualTo(0x1234);
        assertThat(received.qpNumber()).isEqualTo(pair.b().qpNumber());
        assertThat(remote.segment().getString(0)).isEqualTo("hello rxe");

        // RDMA write
        local.segment().setString(512, "written by RDMA");
        pair.a().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE).addSge(local, 512, 32)
                .remote(remote.remote(1024, 32)));
        WorkCompletion written = awaitOne(pair.cqA(), batch);
        assertThat(written.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(written.opcode()).isEqualTo(CompletionOpcode.RDMA_WRITE);
        assertThat(remote.segment().getString(1024)).isEqualTo("written by RDMA");

        // RDMA read
        remote.segment().set(ValueLayout.JAVA_LONG, 2048, 0x0123_4567_89ab_cdefL);
        pair.a().postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_READ).addSge(local, 2048, 8)
                .remote(remote.remote(2048, 8)));
        WorkCompletion read = awaitOne(pair.cqA(), batch);
        assertThat(read.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(read.opcode()).isEqualTo(CompletionOpcode.RDMA_READ);
        assertThat(local.segment().get(ValueLayout.JAVA_LONG, 2048)).isEqualTo(0x0123_4567_89ab_cdefL);

        // inline send
        pair.b().postReceive(new ReceiveWorkRequest().wrId(8).addSge(remote, 3072, 64));
        pair.a().postSend(new SendWorkRequest().wrId(4).flags(EnumSet.of(SendFlag.SIGNALED, SendFlag.INLINE))
                .addInline(local.segment().asSlice(0, 16)));
        assertThat(awaitOne(pair.cqA(), batch).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(awaitOne(pair.cqB(), batch).byteLength()).isEqualTo(16);
        assertThat(pair.a().outstandingSends()).isZero();
    }

    @Test
    void completionEventsWakeAWaiter() throws InterruptedException {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, ALL_ACCESS);
        CompletionChannel channel = context.createCompletionChannel();
        Pair pair = connectedPair(pd, CompletionQueueOptions.of(64).withChannel(channel));
        CompletionBatch batch = new CompletionBatch(4);
        assertThat(pair.cqA().awaitCompletions(batch, Duration.ofMillis(50))).as("nothing posted yet").isZero();
        pair.a().postSend(new SendWorkRequest().wrId(9).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE).addSge(region, 0, 8)
                .remote(region.remote(8, 8)));
        assertThat(pair.cqA().awaitCompletions(batch, WAIT)).isEqualTo(1);
        assertThat(batch.get(0).wrId()).isEqualTo(9);
    }

    @Test
    void errorCompletionsNameTheirQueueAndFlushTheRest() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, ALL_ACCESS);
        Pair pair = connectedPair(pd, CompletionQueueOptions.of(64));
        CompletionBatch batch = new CompletionBatch(1);
        pair.a().postSend(new SendWorkRequest().wrId(11).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE).addSge(region, 0, 8)
                .remote(region.address(), region.rkey() ^ 0x5a5a00));
        WorkCompletion failed = awaitOne(pair.cqA(), batch);
        assertThat(failed.status()).isEqualTo(CompletionStatus.REM_ACCESS_ERR);
        assertThat(failed.opcode()).isEqualTo(CompletionOpcode.RDMA_WRITE);
        assertThat(pair.a().state()).isEqualTo(QueuePairState.ERR);
        assertThat(pair.a().outstandingSends()).isZero();
    }

    @Test
    void softwareCompletionCountersCountImplicitlyCompletedWorkRequests() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, ALL_ACCESS);
        CompletionQueue cqA = context.createCompletionQueue(64);
        CompletionQueue cqB = context.createCompletionQueue(64);
        QueuePair a = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cqA, QueuePairCapabilities.of(16, 16)));
        QueuePair b = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cqB, QueuePairCapabilities.of(16, 16)));
        CompletionCounter sends = context.createCompletionCounter();
        CompletionCounter receives = context.createCompletionCounter();
        assertThat(sends.mode()).isEqualTo(CompletionCounterMode.SOFTWARE);
        assertThatThrownBy(() -> a.attachCompletionCounter(sends, EnumSet.of(CompletionCounterOp.REMOTE_RDMA_WRITE)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOTSUP));
        a.attachCompletionCounter(sends, EnumSet.of(CompletionCounterOp.SEND, CompletionCounterOp.RDMA_WRITE));
        assertThatThrownBy(() -> a.attachCompletionCounter(receives, EnumSet.of(CompletionCounterOp.SEND)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        b.attachCompletionCounter(receives, EnumSet.of(CompletionCounterOp.RECV));
        connect(a, b);
        assertThatThrownBy(() -> a.attachCompletionCounter(receives, EnumSet.of(CompletionCounterOp.RECV)))
                .as("attach in RTS").isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));

        for (int i = 0; i < 4; i++) {
            b.postReceive(new ReceiveWorkRequest().wrId(100 + i).addSge(region, 1024 + 64L * i, 64));
        }
        // three unsignaled sends and an unsignaled write, completed by a final signaled send
        SendWorkRequest first = new SendWorkRequest().wrId(1).addSge(region, 0, 8);
        SendWorkRequest second = new SendWorkRequest().wrId(2).addSge(region, 0, 8);
        SendWorkRequest write = new SendWorkRequest().wrId(3).opcode(SendOpcode.RDMA_WRITE)
                .addSge(region, 0, 8).remote(region.remote(512, 8));
        SendWorkRequest third = new SendWorkRequest().wrId(4).addSge(region, 0, 8);
        SendWorkRequest last = new SendWorkRequest().wrId(5).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(region, 0, 8);
        a.postSend(first.append(second.append(write.append(third.append(last)))));
        CompletionBatch batch = new CompletionBatch(1);
        assertThat(awaitOne(cqA, batch).wrId()).isEqualTo(5);
        for (int i = 0; i < 4; i++) {
            assertThat(awaitOne(cqB, batch).status()).isEqualTo(CompletionStatus.SUCCESS);
        }
        assertThat(sends.completions()).isEqualTo(5);
        assertThat(sends.errors()).isZero();
        assertThat(receives.completions()).isEqualTo(4);

        assertThatThrownBy(sends::close).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        a.close();
        sends.close();
        assertThatThrownBy(sends::completions).isInstanceOf(ResourceClosedException.class);
    }

    @Test
    void flowCountersOnADeviceWithoutThemAreAnErrorNamingTheVerb() {
        assumeTrue(!context.queryDevice().flowCounters(), "the device has flow counters");
        assertThatThrownBy(context::createFlowCounters).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo("ibv_create_counters");
            assertThat(e.errno()).isIn(Errno.EOPNOTSUPP, Errno.ENOSYS);
        });
    }

    @Test
    void postingToAQueuePairInResetFailsWithTheVerbAndErrno() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, ALL_ACCESS);
        CompletionQueue cq = context.createCompletionQueue(16);
        QueuePair qp = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, QueuePairCapabilities.of(4, 4)));
        assertThatThrownBy(() -> qp.postReceive(new ReceiveWorkRequest().wrId(1).addSge(region, 0, 8)))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("ibv_post_recv");
                    assertThat(e.errnoCode()).isPositive();
                    assertThat(e.badWorkRequestId()).isEqualTo(1);
                });
        qp.close();
        assertThatThrownBy(() -> qp.postSend(new SendWorkRequest().flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(region, 0, 8)))
                .isInstanceOf(ResourceClosedException.class);
    }

    @Test
    void postAndPollAllocateNothing() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, ALL_ACCESS);
        Pair pair = connectedPair(pd, CompletionQueueOptions.of(64));
        CompletionBatch batch = new CompletionBatch(8);
        SendWorkRequest send = new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(region, 0, 64);
        ReceiveWorkRequest receive = new ReceiveWorkRequest().wrId(2).addSge(region, 2048, 64);
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int warmUp = 2_000;
        int measured = 1_000;
        long before = 0;
        for (int i = 0; i < warmUp + measured; i++) {
            if (i == warmUp) {
                before = threads.getCurrentThreadAllocatedBytes();
            }
            pair.b().postReceive(receive);
            pair.a().postSend(send);
            while (pair.cqA().poll(batch) == 0) {
                Thread.onSpinWait();
            }
            while (pair.cqB().poll(batch) == 0) {
                Thread.onSpinWait();
            }
        }
        long perOperation = (threads.getCurrentThreadAllocatedBytes() - before) / measured;
        assertThat(perOperation).as("bytes allocated per send + receive, posted and polled").isZero();
    }

    @Test
    void atomicsFetchAddAndCompareSwap() {
        assumeTrue(context.queryDevice().supportsAtomics(), "the device has no atomics");
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));
        Pair pair = connectedPair(pd, CompletionQueueOptions.of(64));
        CompletionBatch batch = new CompletionBatch(1);
        region.segment().set(ValueLayout.JAVA_LONG, 0, 40);
        pair.a().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).addSge(region, 8, 8)
                .remote(region.remote(0, 8)).atomic(2, 0));
        WorkCompletion added = awaitOne(pair.cqA(), batch);
        assertThat(added.opcode()).isEqualTo(CompletionOpcode.FETCH_ADD);
        assertThat(region.segment().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(40);
        assertThat(region.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);
        pair.a().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.ATOMIC_CMP_AND_SWP).addSge(region, 16, 8)
                .remote(region.remote(0, 8)).atomic(42, 7));
        assertThat(awaitOne(pair.cqA(), batch).opcode()).isEqualTo(CompletionOpcode.COMP_SWAP);
        assertThat(region.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(7);
    }

    @Test
    void sharedReceiveQueueFeedsTwoQueuePairsAndSignalsItsLimit() throws InterruptedException {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, ALL_ACCESS);
        var limitReached = new java.util.concurrent.CountDownLatch(1);
        context.addAsyncEventListener(event -> {
            if (event.type() == io.rdma.verbs.api.AsyncEventType.SRQ_LIMIT_REACHED) {
                limitReached.countDown();
            }
        });
        var srq = pd.createSharedReceiveQueue(io.rdma.verbs.api.SharedReceiveQueueAttributes.of(16, 0));
        CompletionQueue sendCq = context.createCompletionQueue(64);
        CompletionQueue recvCq = context.createCompletionQueue(64);
        QueuePairCapabilities caps = QueuePairCapabilities.of(16, 16);
        QueuePair a = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, sendCq, caps));
        QueuePair b = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, sendCq, caps)
                .withCompletionQueues(sendCq, recvCq).withSrq(srq));
        connect(a, b);
        for (int i = 0; i < 4; i++) {
            srq.postReceive(new ReceiveWorkRequest().wrId(50 + i).addSge(region, 1024 + 64L * i, 64));
        }
        srq.armLimit(2);
        assertThat(srq.query().limit()).isEqualTo(2);
        CompletionBatch batch = new CompletionBatch(1);
        for (int i = 0; i < 3; i++) {
            a.postSend(new SendWorkRequest().wrId(i).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(region, 0, 32));
            assertThat(awaitOne(sendCq, batch).status()).isEqualTo(CompletionStatus.SUCCESS);
            WorkCompletion received = awaitOne(recvCq, batch);
            assertThat(received.wrId()).isEqualTo(50 + i);
            assertThat(received.qpNumber()).isEqualTo(b.qpNumber());
        }
        assertThat(limitReached.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                .as("IBV_EVENT_SRQ_LIMIT_REACHED through the async event thread").isTrue();
    }

    @Test
    void unreliableDatagramsReachTheirAddressHandle() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, ALL_ACCESS);
        CompletionQueue cq = context.createCompletionQueue(64);
        QueuePairCapabilities caps = QueuePairCapabilities.of(8, 8);
        QueuePair sender = pd.createQueuePair(QueuePairOptions.of(QueuePairType.UD, cq, caps));
        QueuePair receiver = pd.createQueuePair(QueuePairOptions.of(QueuePairType.UD, cq, caps));
        sender.connect(null, connectOptions);
        receiver.connect(null, connectOptions);
        var endpoint = receiver.localEndpoint(connectOptions);
        var ah = pd.createAddressHandle(endpoint.addressVector(connectOptions));
        receiver.postReceive(new ReceiveWorkRequest().wrId(77).addSge(region, 1024, 40 + 64));
        region.segment().setString(0, "datagram");
        sender.postSend(new SendWorkRequest().wrId(78).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(region, 0, 16)
                .datagram(ah, receiver.qpNumber(), connectOptions.qkey()));
        CompletionBatch batch = new CompletionBatch(1);
        WorkCompletion first = awaitOne(cq, batch);
        WorkCompletion received = first.wrId() == 77 ? first : awaitOne(cq, batch);
        assertThat(received.wrId()).isEqualTo(77);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.byteLength()).as("40-byte GRH area + payload").isEqualTo(40 + 16);
        assertThat(received.sourceQpNumber()).isEqualTo(sender.qpNumber());
        assertThat(region.segment().getString(1024 + 40)).isEqualTo("datagram");
    }

    @Test
    void completionTimestampsWhereTheDeviceHasThem() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, ALL_ACCESS);
        CompletionQueueOptions timestamped = CompletionQueueOptions.of(64).withTimestamps();
        if (!context.queryDevice().completionTimestamps()) {
            assertThatThrownBy(() -> context.createCompletionQueue(timestamped))
                    .isInstanceOfSatisfying(VerbsException.class,
                            e -> assertThat(e.verb()).isEqualTo("ibv_create_cq_ex"));
            return;
        }
        Pair pair = connectedPair(pd, timestamped);
        CompletionBatch batch = new CompletionBatch(1);
        pair.a().postSend(new SendWorkRequest().wrId(5).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE).addSge(region, 0, 8)
                .remote(region.remote(8, 8)));
        WorkCompletion written = awaitOne(pair.cqA(), batch);
        assertThat(written.wrId()).isEqualTo(5);
        assertThat(written.opcode()).isEqualTo(CompletionOpcode.RDMA_WRITE);
        assertThat(written.completionTimestamp()).isNotNegative();
    }
}
