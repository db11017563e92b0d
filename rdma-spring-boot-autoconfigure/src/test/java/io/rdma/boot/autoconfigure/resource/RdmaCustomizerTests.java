package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.ResourceLifecycleRecorder;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.RdmaCustomizer;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@link RdmaCustomizer} beans adjust the options of the declared resource they name, on the device under test. */
class RdmaCustomizerTests {

    private static final String CLIENT = "rdma.devices." + RdmaContextRunners.DEVICE + ".protection-domains.pd0.queue-pairs.client";

    @Test
    void customizersAdjustTheQueuePairCompletionQueueAndPrototypeTheyName() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        AtomicInteger prototypeQueuePairs = new AtomicInteger();
        // connected.yml declares 16 send WRs for 'client' and 256 entries for cq0
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withBean("clientDepth", RdmaCustomizer.class, () -> RdmaCustomizer.queuePair("client",
                        options -> options.withCapabilities(deeper(options.capabilities(), 48))))
                .withBean("cqSize", RdmaCustomizer.class, () -> RdmaCustomizer.completionQueue("cq0",
                        options -> new CompletionQueueOptions(1024, options.channel(), options.completionVector(),
                                options.completionTimestamps())))
                .withBean("peerQueuePairs", RdmaCustomizer.class, () -> RdmaCustomizer.queuePair("echo-peer",
                        options -> {
                            prototypeQueuePairs.incrementAndGet();
                            return options;
                        }))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("client", QueuePair.class).capabilities().maxSendWr()).isGreaterThanOrEqualTo(48);
                    assertThat(context.getBean("cq0", CompletionQueue.class).capacity()).isGreaterThanOrEqualTo(1024);
                    // the listener's prototype QP for the accepted client went through the template's customizer
                    await().atMost(Duration.ofSeconds(5)).until(() ->
                            !context.getBean(RdmaConnections.class).listeners().getFirst().peers().isEmpty());
                    assertThat(prototypeQueuePairs).hasPositiveValue();
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    void aCustomizerOfANameNothingDeclaresFailsTheStartBeforeAnythingIsOpened() {
        RdmaContextRunners.runner("connected")
                .withBean("typo", RdmaCustomizer.class, () -> RdmaCustomizer.queuePair("clinet", options -> options))
                .run(context -> {
                    assertThat(context).hasFailed();
                    InvalidRdmaConfigurationException failure = RdmaContextRunners.cause(context.getStartupFailure(),
                            InvalidRdmaConfigurationException.class);
                    assertThat(failure.property()).isEqualTo("rdma.devices");
                    assertThat(failure.getMessage()).contains("queue pair 'clinet'").contains("client")
                            .contains("echo-peer");
                });
    }

    @Test
    void aCustomizerThatRewiresAQueuePairFailsTheStartNamingItsPropertyAndLeavesNothingOpen() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withBean("rewire", RdmaCustomizer.class, () -> RdmaCustomizer.queuePair("client",
                        options -> new QueuePairOptions(QueuePairType.UC, options.sendCq(), options.recvCq(),
                                options.srq(), options.capabilities(), options.signalAll())))
                .run(context -> {
                    assertThat(context).hasFailed();
                    InvalidRdmaConfigurationException failure = RdmaContextRunners.cause(context.getStartupFailure(),
                            InvalidRdmaConfigurationException.class);
                    assertThat(failure.property()).isEqualTo(CLIENT);
                    assertThat(failure.getMessage()).contains("queue pair 'client'").contains("type");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    private static QueuePairCapabilities deeper(QueuePairCapabilities declared, int maxSendWr) {
        return new QueuePairCapabilities(maxSendWr, declared.maxRecvWr(), declared.maxSendSge(),
                declared.maxRecvSge(), declared.maxInlineData());
    }
}
