package io.rdma.spring.template;

import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.RemoteBuffer;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Every template operation is one observation, from when it is made until its future completes,
 * named {@code rdma.template.operations} and tagged with its declared queue pair, its verb and its
 * outcome; with a meter handler it is a timer of that name and those tags.
 */
class RdmaTemplateObservationTests {

    private static final String CLIENT = RdmaContextRunners.DEVICE_PROPERTY + ".protection-domains.pd0.queue-pairs.client";
    private static final long WAIT_SECONDS = 10;

    @Test
    void everyOperationIsObservedWithItsQueuePairItsVerbAndSuccess() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.IMMEDIATE_DATA);
        StoppedObservations stopped = new StoppedObservations();
        RdmaContextRunners.runner("connected").withBean(ObservationRegistry.class, stopped::registry)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);
                    PooledBuffer target = context.getBean("buffers", MemoryPool.class).lease();
                    RemoteBuffer remote = target.remote();
                    byte[] hello = "hello".getBytes(StandardCharsets.UTF_8);

                    template.send("client", hello).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    template.send("client", hello, 7).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    template.send("client", hello.length, segment -> segment.copyFrom(
                            MemorySegment.ofArray(hello))).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    template.write("client", hello, remote).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    template.read("client", remote.slice(0, 5), 5).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    template.fetchAndAdd("client", remote.slice(64, 8), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    template.compareAndSwap("client", remote.slice(64, 8), 1, 2).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    target.close();

                    List<Observation.Context> client = stopped.await(7, onQueuePair("client"));
                    assertThat(client).extracting(Observation.Context::getName).containsOnly("rdma.template.operations");
                    assertThat(client).extracting(RdmaTemplateObservationTests::tags).containsExactly(
                            tags("client", "send", "success"), tags("client", "send_with_imm", "success"),
                            tags("client", "send", "success"), tags("client", "write", "success"),
                            tags("client", "read", "success"), tags("client", "fetch_and_add", "success"),
                            tags("client", "compare_and_swap", "success"));
                    assertThat(client).extracting(Observation.Context::getContextualName).containsExactly(
                            "send client", "send_with_imm client", "send client", "write client", "read client",
                            "fetch_and_add client", "compare_and_swap client");
                    assertThat(client).extracting(Observation.Context::getError).containsOnlyNulls();
                });
    }

    /** The echo listener's replies go out through the template on the peer's queue pair, echo#1. */
    @Test
    void aPeersQueuePairIsTaggedWithThePrototypeItWasCreatedFrom() {
        StoppedObservations stopped = new StoppedObservations();
        RdmaContextRunners.runner("connected").withBean(ObservationRegistry.class, stopped::registry)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    context.getBean(RdmaTemplate.class).send("client", "hello".getBytes(StandardCharsets.UTF_8))
                            .get(WAIT_SECONDS, TimeUnit.SECONDS);

                    Observation.Context reply = stopped.await(1, onQueuePair("echo-peer")).getFirst();
                    assertThat(tags(reply)).isEqualTo(tags("echo-peer", "send", "success"));
                    assertThat(((RdmaOperationContext) reply).queuePair()).startsWith("echo#");
                });
    }

    /** Remote memory of an rkey no region has: the read completes with IBV_WC_REM_ACCESS_ERR. */
    @Test
    void aFailedOperationIsObservedWithItsCompletionStatusAndError() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.ACCESS_ERROR_STATUS);
        StoppedObservations stopped = new StoppedObservations();
        RdmaContextRunners.runner("connected").withBean(ObservationRegistry.class, stopped::registry)
                .withUserConfiguration(EchoConfiguration.class).withPropertyValues("rdma.shutdown.drain-timeout=0s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    PooledBuffer target = context.getBean("buffers", MemoryPool.class).lease();
                    RemoteBuffer forged = new RemoteBuffer(target.address(), target.rkey() ^ 0x00AB_CD00, 8);

                    Throwable failure = catchThrowable(() -> context.getBean(RdmaTemplate.class)
                            .read("client", forged, 8).get(WAIT_SECONDS, TimeUnit.SECONDS));
                    target.close();

                    RdmaOperationException completedInError = RdmaContextRunners.cause(failure,
                            RdmaOperationException.class);
                    Observation.Context read = stopped.await(1, onQueuePair("client")).getFirst();
                    assertThat(tags(read)).isEqualTo(tags("client", "read", "rem_access_err"));
                    assertThat(read.getError()).isSameAs(completedInError);
                });
    }

    /**
     * Nothing receives on 'server': the client's send queue fills. Of two sends waiting for room,
     * one is cancelled by its caller and the other gives up when the send-timeout passes.
     */
    @Test
    void aSendThatFindsNoRoomIsObservedAsSendQueueFullAndACancelledOneAsCancelled() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.RNR_FLOW_CONTROL);
        StoppedObservations stopped = new StoppedObservations();
        RdmaContextRunners.runner("single-peer").withBean(ObservationRegistry.class, stopped::registry)
                .withPropertyValues(CLIENT + ".max-send-wr=4", CLIENT + ".send-timeout=200ms",
                        "rdma.shutdown.drain-timeout=0s").run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);
                    int depth = context.getBean("client", QueuePair.class).capabilities().maxSendWr();
                    IntStream.range(0, depth).forEach(i -> template.send("client", new byte[] {(byte) i}));

                    CompletableFuture<Void> cancelled = template.send("client", new byte[] {41});
                    CompletableFuture<Void> timedOut = template.send("client", new byte[] {42});
                    cancelled.cancel(false);
                    Throwable failure = catchThrowable(() -> timedOut.get(WAIT_SECONDS, TimeUnit.SECONDS));

                    List<Observation.Context> settled = stopped.await(2, onQueuePair("client"));
                    assertThat(settled).extracting(RdmaTemplateObservationTests::tags).containsExactly(
                            tags("client", "send", "cancelled"), tags("client", "send", "send_queue_full"));
                    assertThat(settled.get(0).getError()).as("a cancel is not an error").isNull();
                    assertThat(settled.get(1).getError()).isSameAs(RdmaContextRunners.cause(failure,
                            SendQueueFullException.class));
                });
    }

    @Test
    void withAMeterHandlerEachOperationIsTimedAsPrometheusShowsIt() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        RdmaContextRunners.runner("connected").withBean(ObservationRegistry.class, () -> observations)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);
                    for (int i = 0; i < 3; i++) {
                        template.send("client", "hello".getBytes(StandardCharsets.UTF_8)).get(WAIT_SECONDS,
                                TimeUnit.SECONDS);
                    }

                    Timer sends = meters.get("rdma.template.operations").tags("rdma.queue_pair", "client",
                            "rdma.operation", "send", "outcome", "success").timer();
                    awaitCount(sends, 3);
                    // error: the meter handler's own tag, the failure's class name
                    assertThat(meters.scrape()).contains("# TYPE rdma_template_operations_seconds summary")
                            .contains("rdma_template_operations_seconds_count{error=\"none\",outcome=\"success\","
                                    + "rdma_operation=\"send\",rdma_queue_pair=\"client\"} 3")
                            .as("in flight, an operation has no outcome yet")
                            .contains("rdma_template_operations_active_seconds_count{rdma_operation=\"send\","
                                    + "rdma_queue_pair=\"client\"} 0");
                });
    }

    @Test
    void aConventionBeanNamesAndTagsTheObservations() {
        StoppedObservations stopped = new StoppedObservations();
        RdmaContextRunners.runner("connected").withBean(ObservationRegistry.class, stopped::registry)
                .withBean(RdmaTemplateObservationConvention.class, PeerKindConvention::new)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    context.getBean(RdmaTemplate.class).send("client", "hello".getBytes(StandardCharsets.UTF_8))
                            .get(WAIT_SECONDS, TimeUnit.SECONDS);

                    Observation.Context send = stopped.await(1, onQueuePair("client")).getFirst();
                    assertThat(send.getName()).isEqualTo("rdma.sends");
                    assertThat(send.getLowCardinalityKeyValue("rdma.peer_kind")).isEqualTo(
                            KeyValue.of("rdma.peer_kind", "declared"));
                });
    }

    private static Predicate<Observation.Context> onQueuePair(String declaration) {
        return context -> context instanceof RdmaOperationContext operation
                && operation.declaration().equals(declaration);
    }

    private static Map<String, String> tags(Observation.Context context) {
        Map<String, String> tags = new TreeMap<>();
        context.getLowCardinalityKeyValues().forEach(tag -> tags.put(tag.getKey(), tag.getValue()));
        return tags;
    }

    private static Map<String, String> tags(String queuePair, String operation, String outcome) {
        return new TreeMap<>(Map.of("rdma.queue_pair", queuePair, "rdma.operation", operation, "outcome", outcome));
    }

    /** The timer is stopped on the poller's thread, which may run after the future's caller woke. */
    private static void awaitCount(Timer timer, long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (timer.count() < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(timer.count()).isEqualTo(count);
    }

    /** A registry whose handler keeps every observation's context once it stops, in the order they stop. */
    static final class StoppedObservations implements ObservationHandler<Observation.Context> {
        private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
        private final ObservationRegistry registry = ObservationRegistry.create();

        StoppedObservations() {
            registry.observationConfig().observationHandler(this);
        }

        ObservationRegistry registry() {
            return registry;
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        /** The first {@code count} stopped observations {@code selected}, once as many stopped. */
        List<Observation.Context> await(int count, Predicate<Observation.Context> selected) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            List<Observation.Context> matching = List.of();
            while (System.nanoTime() < deadline) {
                matching = stopped.stream().filter(selected).toList();
                if (matching.size() >= count) {
                    return matching.subList(0, count);
                }
                Thread.sleep(10);
            }
            throw new AssertionError(count + " observations expected, " + matching.size() + " stopped: " + matching);
        }
    }

    /** A user's convention: its own name, and a tag of its own on top of the default ones. */
    static final class PeerKindConvention extends DefaultRdmaTemplateObservationConvention {
        @Override
        public String getName() {
            return "rdma.sends";
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(RdmaOperationContext context) {
            return super.getLowCardinalityKeyValues(context).and("rdma.peer_kind",
                    context.queuePair().equals(context.declaration()) ? "declared" : "accepted");
        }
    }

    static final class Echo {
        @RdmaListener(connectionListener = "echo")
        byte[] echo(byte[] request) {
            return request;
        }
    }

    /** Posts receives on the client, so that the echo's replies arrive. */
    static final class Replies {
        @RdmaListener(queuePair = "client")
        void reply(byte[] reply) {
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
