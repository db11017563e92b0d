package io.rdma.spring.template;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.SimulatedOnly;
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
 * keep within what its consumer takes: a send that does not
 * block its caller waits for room at most its channel's {@code send-timeout} (5 s), and fails once
 * the senders outrun the device by that much, as 20,000 sends made at once did on the emulated
 * rxe0; and messages beyond the receive queue wait on RNR retries there.
 *
 * <p>On the simulated fabric only, and that is not a fix: on rxe0 (the Soft-RoCE guest, one
 * virtual-thread carrier) the senders did not finish within 2 or 3 minutes, in two
 * runs with {@code sendAndForget} (20,000 and 4,000 messages, windows of 48 and 16) and one with
 * {@code send} and a future (4,000, window 16; no send failed before
 * the context closed; with {@code sendAndForget} the listener's container still held 8 messages
 * then, never handed to the method). The first suspect: the window is twice the 8 receives the
 * peer's container posts, so the client meets RNR NAKs there, and rxe's RNR retries are slow or
 * stall under emulation. With a window of 8 the same test passed on rxe0 (once, by
 * hand: 4,000 messages, each exactly once, in 70 s), which points there; why sends that meet RNR
 * NAKs stall rather than arrive late (rnr_retry 7 retries for ever) is not known yet
 * (2026-11-29): an open defect of the receive path or of rxe, whichever send is used.
 */
@SimulatedOnly
class ForgottenSendConcurrencyTests {

    private static final int SENDERS = 4;
    private static final int MESSAGES_EACH = 1_000;
    /**
     * Messages sent and not yet received, at most: the queue pairs' max-recv-wr in the connected
     * declaration, though the peer's container posts 8 of them (its pool is shared by up to 4
     * peers), so on a device the window also meets RNR NAKs (see the class comment).
     */
    private static final int WINDOW = 16;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void everyMessageOfConcurrentSendersArrivesExactlyOnce() {
        RdmaContextRunners.simulatedRunner("connected").withUserConfiguration(CountingConfiguration.class).run(context -> {
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
