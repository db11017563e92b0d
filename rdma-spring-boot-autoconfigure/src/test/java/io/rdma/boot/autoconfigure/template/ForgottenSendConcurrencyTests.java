package io.rdma.spring.template;

import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.spring.listener.RdmaListener;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RdmaTemplate#sendAndForget} from several threads at once on one channel, so that the
 * objects that carry the sends are settled on the poller thread and taken again by the senders
 * all along, and sends find the send queue full now and then (a send's slot is freed when its
 * completion is polled, after the peer received it): every message arrives exactly once, with
 * its own bytes (a carrier handed to two sends at once would send one of them twice and lose the
 * other).
 *
 * <p>The senders keep at most {@value #WINDOW} messages unreceived, as a stream's producer must
 * keep within what its consumer takes: a send that does not block its caller waits for room at
 * most its channel's {@code send-timeout} (5 s), and fails once the senders outrun the device by
 * that much, as 20,000 sends made at once did on the emulated rxe0. The window is twice the 8
 * receives the peer's container posts (its pool is shared by up to 4 peers), so on a device the
 * sends also meet RNR NAKs and wait the peer's RNR timer before they are sent again: this once
 * took minutes on rxe0, where the kernel's connection manager gave the peer an RNR timer of 0,
 * 655 ms per NAK (now 12, 0.64 ms: ReliabilitySettings.DEFAULT_RNR_TIMER). Not on iWARP, where a
 * message that finds no receive posted ends the connection.
 */
class ForgottenSendConcurrencyTests {

    private static final int SENDERS = 4;
    private static final int MESSAGES_EACH = 1_000;
    /**
     * Messages sent and not yet received, at most: the queue pairs' max-recv-wr in the connected
     * declaration, twice the receives the peer's container posts (see the class comment).
     */
    private static final int WINDOW = 16;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void everyMessageOfConcurrentSendersArrivesExactlyOnce() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.RNR_FLOW_CONTROL);
        RdmaContextRunners.runner("connected").withUserConfiguration(CountingConfiguration.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Counting received = context.getBean(Counting.class);
            List<Thread> senders = new ArrayList<>();
            for (int sender = 0; sender < SENDERS; sender++) {
                long high = (long) sender << 32;
                senders.add(Thread.ofPlatform().name("sender-" + sender).start(() -> {
                    for (long i = 0; i < MESSAGES_EACH; i++) {
                        try {
                            if (!received.window.tryAcquire(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                                return; // messages were lost: the assertions below say which
                            }
                        } catch (InterruptedException e) {
                            return;
                        }
                        long value = high | i;
                        template.sendAndForget("client", Long.BYTES,
                                segment -> segment.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value));
                    }
                }));
            }
            for (Thread sender : senders) {
                assertThat(sender.join(WAIT.multipliedBy(3))).as(sender.getName() + " done").isTrue();
            }

            await().atMost(WAIT).until(() -> received.count.get() >= SENDERS * MESSAGES_EACH);
            Set<Long> expected = ConcurrentHashMap.newKeySet();
            for (int sender = 0; sender < SENDERS; sender++) {
                long high = (long) sender << 32;
                LongStream.range(0, MESSAGES_EACH).forEach(i -> expected.add(high | i));
            }
            assertThat(received.count.get()).as("messages received").isEqualTo(SENDERS * MESSAGES_EACH);
            assertThat(received.values).isEqualTo(expected);
            assertThat(template.forgottenSendFailures()).isZero();
        });
    }

    static final class Counting {
        final AtomicLong count = new AtomicLong();
        final Set<Long> values = ConcurrentHashMap.newKeySet();
        /** Room for the senders' messages in flight: one taken per send, given back per message received. */
        final Semaphore window = new Semaphore(WINDOW);

        @RdmaListener(connectionListener = "echo")
        void receive(byte[] message) {
            values.add(ByteBuffer.wrap(message).order(ByteOrder.nativeOrder()).getLong());
            count.incrementAndGet();
            window.release();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CountingConfiguration {

        @Bean
        Counting counting() {
            return new Counting();
        }
    }
}
