package com.example.greetings;

import java.time.Duration;

import io.rdma.boot.test.SimulatedRdma;
import io.rdma.spring.template.RdmaOperationException;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.provider.simulated.FabricControl;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@SimulatedRdma
class GreetingsTests {

    @Autowired
    Greetings greetings;

    @Autowired
    FabricControl fabric;

    @Test
    void aGreetingIsAnswered() {
        assertThat(greetings.greet("test"))
                .succeedsWithin(Duration.ofSeconds(5))
                .isEqualTo(new Greetings.Reply("hello, test"));
    }

    @Test
    @DirtiesContext   // the lost greeting fails the connection; the next test gets a fresh one
    void aGreetingOnALossyLinkFailsOnceRetriesAreExhausted() {
        fabric.dropPackets("rxe0", 1, 8);   // the first transmission and retry_cnt = 7 retries
        assertThat(greetings.greet("nobody"))
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableThat()
                .havingRootCause()
                .isInstanceOfSatisfying(RdmaOperationException.class,
                        e -> assertThat(e.status()).isEqualTo(CompletionStatus.RETRY_EXC_ERR));
    }
}
