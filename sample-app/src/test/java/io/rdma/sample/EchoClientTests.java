package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.ServiceGroup;
import io.rdma.spring.listener.ReceivedMessage;
import io.rdma.spring.template.RdmaTemplate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** The client's bookkeeping of replies, with a template whose sends go out and are never answered. */
class EchoClientTests {

    /** The queue pair of the one connected instance of the service. */
    private static final String INSTANCE = "echo-client@a";

    private final RdmaTemplate rdma = mock(RdmaTemplate.class);
    private final RdmaConnections connections = mock(RdmaConnections.class);

    EchoClientTests() {
        ServiceGroup group = mock(ServiceGroup.class);
        when(group.any()).thenReturn(INSTANCE);
        when(connections.group("echo-client")).thenReturn(group);
    }

    @Test
    void requestsThatTimedOutAreForgottenAndTheirLateRepliesDropped() {
        when(rdma.send(eq(INSTANCE), any(byte[].class), anyInt())).thenReturn(CompletableFuture.completedFuture(null));
        EchoClient client = new EchoClient(rdma, connections, Duration.ofMillis(50));

        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            calls.add(client.echo("lost-" + i));
        }
        for (CompletableFuture<String> call : calls) {
            assertThat(call).failsWithin(Duration.ofSeconds(5)).withThrowableThat().havingCause()
                    .isInstanceOf(TimeoutException.class);
        }
        assertThat(client.awaitingReplies()).as("replies still awaited after every request timed out").isZero();

        client.reply(new ReceivedMessage(INSTANCE, "late".getBytes(StandardCharsets.UTF_8), true, 1));
        assertThat(client.awaitingReplies()).isZero();
    }

    @Test
    void aReplyCompletesItsRequestAndLeavesNothingBehind() {
        when(rdma.send(eq(INSTANCE), any(byte[].class), anyInt())).thenReturn(CompletableFuture.completedFuture(null));
        EchoClient client = new EchoClient(rdma, connections, Duration.ofSeconds(5));

        CompletableFuture<String> call = client.echo("hi");
        assertThat(client.awaitingReplies()).isOne();
        client.reply(new ReceivedMessage(INSTANCE, "echo: HI".getBytes(StandardCharsets.UTF_8), true, 1));

        assertThat(call).isCompletedWithValue("echo: HI");
        assertThat(client.awaitingReplies()).isZero();
    }

    @Test
    void aRequestThatCouldNotBeSentFailsAndIsForgotten() {
        IllegalStateException refused = new IllegalStateException("queue pair down");
        when(rdma.send(eq(INSTANCE), any(byte[].class), anyInt())).thenReturn(CompletableFuture.failedFuture(refused));
        EchoClient client = new EchoClient(rdma, connections, Duration.ofSeconds(5));

        assertThat(client.echo("hi")).failsWithin(Duration.ofSeconds(1)).withThrowableThat().havingCause().isSameAs(refused);
        assertThat(client.awaitingReplies()).isZero();
    }
}
