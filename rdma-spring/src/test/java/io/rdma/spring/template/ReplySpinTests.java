package io.rdma.spring.template;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A caller waiting for a reply spins before it parks only on a channel whose replies come within
 * the spin: on one whose replies take longer (a listener on worker threads, a remote peer) the
 * spin would hold a core for nothing, so the request parks at once.
 */
class ReplySpinTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final MemorySegment REPLY = MemorySegment.ofArray(new byte[] {42});

    @Test
    void aNewChannelsRequestSpinsAndOneWhoseRepliesTakeMillisecondsParksAtOnce() throws Exception {
        PendingRequests pending = new PendingRequests("client", new LongAdder());
        assertThat(new Request(new byte[1], pending, TIMEOUT).spinBeforeParkingNanos())
                .as("on a channel with no reply yet").isEqualTo(TemplateFuture.SPIN_BEFORE_PARKING_NANOS);

        for (int i = 0; i < 16; i++) {
            Request request = new Request(new byte[1], pending, TIMEOUT);
            assertThat(pending.register(request)).isTrue();
            Thread.sleep(2);
            pending.replied(RdmaWireFormat.immediateData(RdmaWireFormat.REPLY, request.correlationId()), REPLY, 1);
            assertThat(request.get(1, TimeUnit.SECONDS)).isEqualTo(new byte[] {42});
        }

        assertThat(new Request(new byte[1], pending, TIMEOUT).spinBeforeParkingNanos())
                .as("after replies that took 2 ms each").isZero();
    }
}
