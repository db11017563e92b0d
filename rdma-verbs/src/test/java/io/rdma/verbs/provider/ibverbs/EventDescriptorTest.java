package io.rdma.verbs.provider.ibverbs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Waits on the read end of a pipe(2): readable when written, empty once the deadline passes,
 * interruptible. That a wait allocates nothing is measured by {@link EventWaitBenchmark}
 * ({@code -prof gc}), not asserted here: it holds only once the JIT has compiled the wait.
 */
class EventDescriptorTest {

    private Pipe pipe;
    private EventDescriptor descriptor;

    @BeforeEach
    void openPipe() throws Throwable {
        pipe = new Pipe();
        descriptor = pipe.readDescriptor();
    }

    @AfterEach
    void closePipe() throws Throwable {
        pipe.close();
    }

    @Test
    void aWrittenDescriptorIsReadableAtOnce() throws Throwable {
        assertThat(pipe.write()).isEqualTo(8);
        long started = System.nanoTime();
        assertThat(descriptor.awaitReadable(started + Duration.ofSeconds(10).toNanos(), "read")).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void anEmptyDescriptorTimesOutOnTime() throws InterruptedException {
        long started = System.nanoTime();
        assertThat(descriptor.awaitReadable(started + Duration.ofMillis(250).toNanos(), "read")).isFalse();
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        // longer than one 100 ms slice, so the deadline spans several polls
        assertThat(waited).isBetween(Duration.ofMillis(250), Duration.ofSeconds(5));
        assertThat(descriptor.awaitReadable(System.nanoTime(), "read")).as("a passed deadline only checks").isFalse();
    }

    @Test
    void anInterruptEndsTheWait() {
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> descriptor.awaitReadable(System.nanoTime() + Duration.ofSeconds(10).toNanos(),
                "ibv_get_cq_event")).isInstanceOf(InterruptedException.class).hasMessageContaining("ibv_get_cq_event");
    }
}
