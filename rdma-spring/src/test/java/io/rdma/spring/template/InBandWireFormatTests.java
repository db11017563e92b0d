package io.rdma.spring.template;

import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.config.EnableRdma;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.listener.ReceivedBuffer;
import io.rdma.spring.resource.CompletionMode;
import io.rdma.spring.resource.CompletionPolling;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.WorkCompletion;
import io.rdma.verbs.provider.simulated.DeviceSpec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Request/reply on a channel whose device carries no immediate data (a simulated iWARP device,
 * which refuses immediate data at post as siw does), checked against the wire format that
 * {@link RdmaWireFormat} documents for a C peer, not against the template's own other end: the
 * template's queue pair {@code client} is connected to a queue pair the test drives with raw
 * verbs, reading what arrives byte by byte and answering as a C peer would. And the same channel
 * between two listeners of the template, where the header never shows.
 */
class InBandWireFormatTests {

    private static final int BUFFER_SIZE = 256;
    private static final long WAIT_SECONDS = 30;
    private static final Set<AccessFlag> LOCAL_WRITE = EnumSet.of(AccessFlag.LOCAL_WRITE);
    private static final ValueLayout.OfInt NETWORK_ORDER_INT = ValueLayout.JAVA_INT_UNALIGNED
            .withOrder(ByteOrder.BIG_ENDIAN);

    private Verbs verbs;
    private QueuePair client;
    private QueuePair peer;
    private CompletionQueue clientCq;
    private CompletionQueue peerCq;
    private MemoryPool clientBuffers;
    private MemoryPool peerBuffers;
    private RdmaResources resources;

    @BeforeEach
    void iwarpDeviceWithAConnectedPair() {
        verbs = Verbs.open(ProviderKind.SIMULATED, List.of(DeviceSpec.named("iw0").transport(TransportType.IWARP)
                .linkLayer(LinkLayer.ETHERNET).atomics(false).build()));
        DeviceContext device = verbs.devices().getFirst().open();
        ProtectionDomain pd = device.allocateProtectionDomain();
        clientCq = device.createCompletionQueue(CompletionQueueOptions.of(256)
                .withChannel(device.createCompletionChannel()));
        peerCq = device.createCompletionQueue(CompletionQueueOptions.of(256));
        clientBuffers = pd.createMemoryPool(BUFFER_SIZE, 32, LOCAL_WRITE);
        peerBuffers = pd.createMemoryPool(BUFFER_SIZE, 32, LOCAL_WRITE);
        QueuePairCapabilities capabilities = QueuePairCapabilities.of(16, 16);
        client = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, clientCq, capabilities));
        peer = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, peerCq, capabilities));
        SimulatedLoopback.connect(client, peer);
        for (int i = 0; i < 8; i++) {
            PooledBuffer buffer = peerBuffers.lease();
            peer.postReceive(new ReceiveWorkRequest().wrId(buffer.index()).addSge(buffer, 0, buffer.capacity()));
        }
        resources = RdmaResources.builder(verbs).device("iw0", device, 1)
                .completionQueue("cq0", clientCq, new CompletionPolling(CompletionMode.EVENT, Duration.ZERO, 16))
                .memoryPool("client-buffers", clientBuffers)
                .queuePair("client", client, "client-buffers", Duration.ofSeconds(5))
                .drainTimeout(Duration.ofMillis(200)).build();
    }

    @AfterEach
    void close() {
        verbs.close();
    }

    @Test
    void aPlainSendStartsWithAZeroWordInNetworkOrder() throws Exception {
        try (AnnotationConfigApplicationContext context = run()) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            template.send("client", bytes("abc")).get(WAIT_SECONDS, TimeUnit.SECONDS);

            Arrived arrived = receiveAtPeer();
            assertThat(arrived.opcode()).as("a plain SEND, as iWARP has no SEND_WITH_IMM").isEqualTo(CompletionOpcode.RECV);
            assertThat(arrived.hasImmediateData()).isFalse();
            assertThat(HexFormat.of().formatHex(arrived.bytes())).isEqualTo("00000000" + "616263");
        }
    }

    @Test
    void aRequestCarriesKindAndCorrelationIdInItsHeaderAndAPeersReplyCompletesIt() throws Exception {
        try (AnnotationConfigApplicationContext context = run()) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            // the client receives for replies once it has a pending request: the first of two
            CompletableFuture<byte[]> first = template.sendAndReceive("client", bytes("one"), Duration.ofSeconds(10));
            CompletableFuture<byte[]> second = template.sendAndReceive("client", bytes("two"), Duration.ofSeconds(10));

            Arrived one = receiveAtPeer();
            Arrived two = receiveAtPeer();
            for (Arrived request : List.of(one, two)) {
                assertThat(request.word() >>> 30).as("kind 01, request").isEqualTo(1);
                assertThat(request.payload()).isIn("one", "two");
            }
            Arrived toOne = one.payload().equals("one") ? one : two;
            Arrived toTwo = toOne == one ? two : one;
            assertThat(toOne.word()).isNotEqualTo(toTwo.word());

            // answered in the other order, as a C peer may: the correlation id decides, not the order
            sendFromPeer(0x8000_0000 | (toTwo.word() & RdmaWireFormat.MAX_CORRELATION_ID), "answer two");
            sendFromPeer(0xC000_0000 | (toOne.word() & RdmaWireFormat.MAX_CORRELATION_ID),
                    "java.lang.IllegalStateException\nno one");

            assertThat(text(second.get(WAIT_SECONDS, TimeUnit.SECONDS))).isEqualTo("answer two");
            assertThatThrownBy(() -> first.get(WAIT_SECONDS, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(RdmaRemoteException.class)
                    .hasMessageContaining("java.lang.IllegalStateException").hasMessageContaining("no one");
        }
    }

    @Test
    void theApplicationsOwnImmediateDataIsRefusedAtTheCall() throws Exception {
        try (AnnotationConfigApplicationContext context = run()) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            assertThatThrownBy(() -> template.send("client", bytes("x"), 7).get(WAIT_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOf(ImmediateDataUnsupportedException.class).hasMessageContaining("'iw0' is iWARP");
        }
    }

    @Test
    void theHeaderTakesFourBytesOfTheBuffer() throws Exception {
        try (AnnotationConfigApplicationContext context = run()) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            assertThatThrownBy(() -> template.send("client", new byte[BUFFER_SIZE - 3]).get(WAIT_SECONDS,
                    TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOfSatisfying(PayloadTooLargeException.class,
                            tooLarge -> assertThat(tooLarge.bufferSize()).isEqualTo(BUFFER_SIZE - 4));

            template.send("client", new byte[BUFFER_SIZE - 4]).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(receiveAtPeer().bytes()).hasSize(BUFFER_SIZE);
        }
    }

    @Test
    void aListenerSeesThePayloadWithoutTheHeaderAndItsReplyCarriesTheCorrelationId() throws Exception {
        try (AnnotationConfigApplicationContext context = run(ZeroCopyListener.class)) {
            sendFromPeer(0x4000_0000 | 12345, "question");

            Arrived reply = receiveAtPeer();
            assertThat(reply.word()).as("kind 10, reply, the request's correlation id").isEqualTo(0x8000_0000 | 12345);
            assertThat(reply.payload()).isEqualTo("8 bytes, immediate 1073754169");

            sendFromPeer(0, "plain");
            assertThat(receiveAtPeer().word()).as("a plain message's reply is plain").isZero();
            assertThat(context.getBean(ZeroCopyListener.class).seen).containsExactly("question", "plain");
        }
    }

    private AnnotationConfigApplicationContext run(Class<?>... components) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.register(PlainRdma.class);
        context.registerBean(RdmaResources.class, () -> resources);
        if (components.length > 0) {
            context.register(components);
        }
        context.refresh();
        return context;
    }

    /** What the raw peer received: its opcode, and the bytes with the header. */
    private record Arrived(CompletionOpcode opcode, boolean hasImmediateData, byte[] bytes) {

        int word() {
            return MemorySegment.ofArray(bytes).get(NETWORK_ORDER_INT, 0);
        }

        String payload() {
            return new String(bytes, 4, bytes.length - 4, StandardCharsets.UTF_8);
        }
    }

    private Arrived receiveAtPeer() throws InterruptedException {
        WorkCompletion completion = pollPeer(CompletionOpcode.RECV);
        PooledBuffer buffer = peerBuffers.buffer((int) completion.wrId());
        byte[] bytes = buffer.segment().asSlice(0, completion.byteLength()).toArray(ValueLayout.JAVA_BYTE);
        Arrived arrived = new Arrived(completion.opcode(), completion.hasImmediateData(), bytes);
        peer.postReceive(new ReceiveWorkRequest().wrId(buffer.index()).addSge(buffer, 0, buffer.capacity()));
        return arrived;
    }

    /** A SEND from the raw peer: {@code word} in network order, then {@code payload}, as a C peer writes it. */
    private void sendFromPeer(int word, String payload) throws InterruptedException {
        byte[] text = bytes(payload);
        try (PooledBuffer buffer = peerBuffers.lease()) {
            buffer.segment().set(NETWORK_ORDER_INT, 0, word);
            MemorySegment.copy(text, 0, buffer.segment(), ValueLayout.JAVA_BYTE, 4, text.length);
            peer.postSend(new SendWorkRequest().wrId(-1).opcode(SendOpcode.SEND).flags(Set.of(SendFlag.SIGNALED))
                    .addSge(buffer, 0, 4 + text.length));
            assertThat(pollPeer(CompletionOpcode.SEND).isSuccess()).isTrue();
        }
    }

    /** Receive completions polled while a send's was awaited, kept for {@link #receiveAtPeer}. */
    private final LinkedBlockingQueue<WorkCompletion> peerReceives = new LinkedBlockingQueue<>();

    private WorkCompletion pollPeer(CompletionOpcode wanted) throws InterruptedException {
        if (wanted == CompletionOpcode.RECV && !peerReceives.isEmpty()) {
            return peerReceives.take();
        }
        CompletionBatch batch = new CompletionBatch(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadline) {
            if (peerCq.poll(batch) == 1) {
                WorkCompletion completion = batch.get(0);
                assertThat(completion.isSuccess()).as("peer completion %s", completion).isTrue();
                if (completion.opcode() == wanted) {
                    return completion;
                }
                peerReceives.add(completion);
            }
            Thread.sleep(1);
        }
        throw new AssertionError("no " + wanted + " completion at the peer within " + WAIT_SECONDS + " s");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The template's side: a plain Spring application on the pair's {@code client} end. */
    @Configuration(proxyBeanMethods = false)
    @EnableRdma
    static class PlainRdma {
    }

    /** Answers with what it saw: the payload's length and the word's value, and keeps the payload. */
    static class ZeroCopyListener {

        final List<String> seen = new CopyOnWriteArrayList<>();

        @RdmaListener(queuePair = "client")
        byte[] answer(ReceivedBuffer message) {
            seen.add(text(message.payload().toArray(ValueLayout.JAVA_BYTE)));
            return bytes(message.length() + " bytes, immediate " + message.immediateData());
        }
    }
}
