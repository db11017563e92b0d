package io.rdma.spring.template;

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RdmaTemplate#sendAndForget} from several threads at once on one channel, far more sends
 * than its send queue holds, so that sends wait for room and the objects that carry them are
 * settled on the poller thread and taken again by the senders all along: every message arrives
 * exactly once, with its own bytes (a carrier handed to two sends at once would send one of them
 * twice and lose the other).
 */
class ForgottenSendConcurrencyTests {

    private static final int SENDERS = 4;
    private static final int MESSAGES_EACH = 5_000;

    @Test
    void everyMessageOfConcurrentSendersArrivesExactlyOnce() {
        RdmaContextRunners.runner("connected").withUserConfiguration(CountingConfiguration.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Counting received = context.getBean(Counting.class);
            List<Thread> senders = new ArrayList<>();
            for (int sender = 0; sender < SENDERS; sender++) {
                long high = (long) sender << 32;
                senders.add(Thread.ofPlatform().name("sender-" + sender).start(() -> {
                    for (long i = 0; i < MESSAGES_EACH; i++) {
                        long value = high | i;
                        template.sendAndForget("client", Long.BYTES,
                                segment -> segment.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value));
                    }
                }));
            }
            for (Thread sender : senders) {
                assertThat(sender.join(Duration.ofSeconds(60))).as(sender.getName() + " done").isTrue();
            }

            await().atMost(60, TimeUnit.SECONDS).until(() -> received.count.get() >= SENDERS * MESSAGES_EACH);
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

        @RdmaListener(connectionListener = "echo")
        void receive(byte[] message) {
            values.add(ByteBuffer.wrap(message).order(ByteOrder.nativeOrder()).getLong());
            count.incrementAndGet();
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
