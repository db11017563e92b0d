package io.rdma.boot.autoconfigure.metrics;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.template.RdmaReplyTimeoutException;
import io.rdma.spring.template.RdmaTemplate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The dropped-message counters in a scrape, between the {@code connected} declaration's client
 * queue pair and the peer its {@code echo} listener gives it, where a listener answers every
 * message: its answer to a one-way send comes to a client that receives (replies to its requests)
 * but where no listener waits (unhandled), its
 * answer to a request that timed out comes late; neither counts as the other, nor as a send
 * without a future that failed.
 */
class DroppedMessageMetricsTests {

    private static final AutoConfigurations METRICS = AutoConfigurations.of(RdmaMetricsAutoConfiguration.class);
    private static final String LATE = "rdma_template_late_replies_total";
    private static final String UNHANDLED = "rdma_listener_unhandled_messages_total";
    private static final String FORGOTTEN = "rdma_template_forgotten_send_failures_total";

    @Test
    void anAnswerWhereNothingListensIsCountedUnhandled() {
        RdmaContextRunners.runner("connected").withConfiguration(METRICS).withBean(SlowEcho.class).run(context -> {
            PrometheusScrape scrape = new PrometheusScrape(context);
            assertThat(scrape.value(UNHANDLED, Map.of())).isZero();

            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            // the client receives (for replies) from its first request on
            assertThat(template.sendAndReceive("client", bytes("request"), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS))
                    .asString(StandardCharsets.UTF_8).isEqualTo("request");

            template.send("client", bytes("one way")).get(5, TimeUnit.SECONDS);

            await().until(() -> scrape.value(UNHANDLED, Map.of()) == 1.0);
            assertThat(scrape.value(LATE, Map.of())).isZero();
        });
    }

    @Test
    void aReplyAfterItsRequestTimedOutIsCountedLate() {
        RdmaContextRunners.runner("connected").withConfiguration(METRICS).withBean(SlowEcho.class).run(context -> {
            PrometheusScrape scrape = new PrometheusScrape(context);
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            assertThatThrownBy(() -> template.sendAndReceive("client", bytes("late"), Duration.ofMillis(50))
                    .get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(RdmaReplyTimeoutException.class);

            await().until(() -> scrape.value(LATE, Map.of()) == 1.0);
            assertThat(scrape.value(UNHANDLED, Map.of())).isZero();
        });
    }

    @Test
    void aSendWithoutAFutureThatFailsIsCountedAndTheNextOneGoesOut() {
        RdmaContextRunners.runner("connected").withConfiguration(METRICS).withBean(SlowEcho.class).run(context -> {
            PrometheusScrape scrape = new PrometheusScrape(context);
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            assertThat(scrape.value(FORGOTTEN, Map.of())).isZero();
            // the client receives (for replies) from its first request on
            template.sendAndReceive("client", bytes("request"), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);

            template.sendAndForget("client", 8, segment -> {
                throw new IllegalStateException("the writer broke");
            });
            template.sendAndForget("client", 8, segment -> segment.fill((byte) 1));

            await().until(() -> scrape.value(UNHANDLED, Map.of()) == 1.0); // the echo of the second
            assertThat(scrape.value(FORGOTTEN, Map.of())).isEqualTo(1.0);
            assertThat(scrape.value(LATE, Map.of())).isZero();
        });
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static final class SlowEcho {
        @RdmaListener(connectionListener = "echo")
        byte[] echo(byte[] request) throws InterruptedException {
            Thread.sleep(300);
            return request;
        }
    }
}
