package io.rdma.spring.template;

import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.ResourceLifecycleRecorder;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.listener.ReceivedMessage;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.RemoteBuffer;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** The programming model end to end: declared connections, the template, and {@code @RdmaListener} methods. */
class RdmaTemplateTests {

    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    @Test
    void sendWithImmediateReachesTheListenerAndItsReplyComesBack() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.IMMEDIATE_DATA);
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("client", QueuePair.class).state()).isEqualTo(QueuePairState.RTS);
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);
                    Replies replies = context.getBean(Replies.class);
                    template.send("client", "hello".getBytes(StandardCharsets.UTF_8), 17).get(5, TimeUnit.SECONDS);
                    ReceivedMessage reply = replies.messages.poll(5, TimeUnit.SECONDS);
                    assertThat(reply).isNotNull();
                    assertThat(new String(reply.payload(), StandardCharsets.UTF_8)).isEqualTo("HELLO");
                    assertThat(reply.hasImmediateData()).isTrue();
                    assertThat(reply.immediateData()).isEqualTo(17);
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    void writeReadCompareAndSwapAndFetchAndAddOnRemoteMemory() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.ATOMICS);
        RdmaContextRunners.runner("connected").withUserConfiguration(EchoConfiguration.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            PooledBuffer target = context.getBean("buffers", MemoryPool.class).lease();
            RemoteBuffer remote = target.remote();

            template.write("client", "written".getBytes(StandardCharsets.UTF_8), remote).get(5, TimeUnit.SECONDS);
            assertThat(target.segment().getString(0)).startsWith("written");
            byte[] read = template.read("client", remote.slice(0, 7), 7).get(5, TimeUnit.SECONDS);
            assertThat(new String(read, StandardCharsets.UTF_8)).isEqualTo("written");

            RemoteBuffer word = remote.slice(64, 8);
            target.segment().set(WORD, 64, 40L);
            assertThat(template.fetchAndAdd("client", word, 2).get(5, TimeUnit.SECONDS)).isEqualTo(40L);
            assertThat(template.compareAndSwap("client", word, 42L, 7L).get(5, TimeUnit.SECONDS)).isEqualTo(42L);
            assertThat(target.segment().get(WORD, 64)).isEqualTo(7L);
            target.close();
        });
    }

    /**
     * A write with immediate data consumes one of the peer's receives and leaves its buffer as it
     * was: the listener gets the immediate data and no bytes (the echo of nothing), not whatever the
     * buffer last held.
     */
    @Test
    void aWriteWithImmediateReachesTheListenerAsImmediateDataWithoutBytes() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.IMMEDIATE_DATA);
        RdmaContextRunners.runner("connected").withUserConfiguration(EchoConfiguration.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Replies replies = context.getBean(Replies.class);
            template.send("client", "earlier".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
            assertThat(replies.messages.poll(5, TimeUnit.SECONDS)).isNotNull();
            PooledBuffer target = context.getBean("buffers", MemoryPool.class).lease();

            template.write("client", "written".getBytes(StandardCharsets.UTF_8), target.remote(), 23)
                    .get(5, TimeUnit.SECONDS);
            ReceivedMessage reply = replies.messages.poll(5, TimeUnit.SECONDS);
            assertThat(reply).as("the echo of the write's notification").isNotNull();
            assertThat(reply.payload()).isEmpty();
            assertThat(target.segment().getString(0)).startsWith("written");
            target.close();
        });
    }

    static final class Replies {
        final BlockingQueue<ReceivedMessage> messages = new LinkedBlockingQueue<>();

        @RdmaListener(queuePair = "client")
        void reply(ReceivedMessage message) {
            messages.add(message);
        }
    }

    static final class Echo {
        @RdmaListener(connectionListener = "echo")
        byte[] echo(byte[] request) {
            return new String(request, StandardCharsets.UTF_8).toUpperCase().getBytes(StandardCharsets.UTF_8);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EchoConfiguration {

        @Bean
        Echo echo() {
            return new Echo();
        }

        @Bean
        Replies replies() {
            return new Replies();
        }
    }
}
