package io.rdma.spring.template;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.spring.listener.RdmaListener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Request/reply's timeouts end to end: a request whose reply does not come within its timeout
 * fails with {@link RdmaReplyTimeoutException} close to its deadline, not when the reply comes,
 * and the reply that comes after it is dropped and counted late; a request made after the
 * channel's requests went quiet for a while times out as well.
 */
class RdmaTemplateReplyTimeoutTests {

    /** How long the listener takes to answer "slow": far beyond the requests' timeout. */
    private static final Duration SLOW = Duration.ofMillis(600);
    private static final Duration TIMEOUT = Duration.ofMillis(50);

    @Test
    void aReplyAfterItsTimeoutFailsTheRequestAtTheDeadlineAndIsCountedLate() {
        RdmaContextRunners.runner("connected").withUserConfiguration(SlowEchoConfiguration.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            assertThat(template.sendAndReceive("client", bytes("hi"), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS))
                    .asString(StandardCharsets.UTF_8).isEqualTo("HI");

            timesOutBeforeTheReply(template);
            await().until(() -> template.lateReplies() == 1);

            // Past the time the timeouts stay watched without requests: a new one is watched again.
            Thread.sleep(1500);
            timesOutBeforeTheReply(template);
            await().until(() -> template.lateReplies() == 2);
        });
    }

    private static void timesOutBeforeTheReply(RdmaTemplate template) {
        long start = System.nanoTime();
        CompletableFuture<byte[]> reply = template.sendAndReceive("client", bytes("slow"), TIMEOUT);
        assertThatThrownBy(() -> reply.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(RdmaReplyTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the request failed")
                .isGreaterThanOrEqualTo(TIMEOUT).isLessThan(SLOW.dividedBy(2));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static final class SlowEcho {
        @RdmaListener(connectionListener = "echo")
        byte[] echo(byte[] request) throws InterruptedException {
            String text = new String(request, StandardCharsets.UTF_8);
            if (text.equals("slow")) {
                Thread.sleep(SLOW);
            }
            return text.toUpperCase().getBytes(StandardCharsets.UTF_8);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SlowEchoConfiguration {

        @Bean
        SlowEcho slowEcho() {
            return new SlowEcho();
        }
    }
}
