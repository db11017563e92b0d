package io.rdma.spring.template;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a caller's wait for a template future does off a polling thread (on one, the polling is
 * {@code PollerHandOffTests}'): a future chained to it is one too, so a typed call's conversion
 * is waited for the same way; a wait with a timeout fails with a timeout once it passed, and a
 * wait for a future completed meanwhile returns its value.
 */
class TemplateFutureTests {

    @Test
    void aFutureChainedToATemplateFutureIsOneToo() {
        TemplateFuture<String> future = new TemplateFuture<>();

        CompletableFuture<Integer> converted = future.thenApply(String::length);
        future.complete("four");

        assertThat(converted).isInstanceOf(TemplateFuture.class);
        assertThat(converted.join()).isEqualTo(4);
    }

    @Test
    void aWaitWithATimeoutFailsOnceItPassed() {
        TemplateFuture<String> never = new TemplateFuture<>();
        long start = System.nanoTime();

        assertThatExceptionOfType(TimeoutException.class).isThrownBy(() -> never.get(50, TimeUnit.MILLISECONDS));

        long waited = System.nanoTime() - start;
        assertThat(waited).as("the wait, in ns").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50))
                .isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void aWaitForAFutureCompletedMeanwhileReturnsItsValue() throws Exception {
        TemplateFuture<String> future = new TemplateFuture<>();
        Thread.ofPlatform().start(() -> future.complete("answered"));

        assertThat(future.get(5, TimeUnit.SECONDS)).isEqualTo("answered");
        assertThat(future.get()).isEqualTo("answered");
    }
}
