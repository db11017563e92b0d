package io.rdma.spring.resource;

import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;

import java.util.function.UnaryOperator;

/**
 * Adjusts, in code, the options one declared resource is created with, where a property cannot
 * say it (as Resilience4j's {@code CircuitBreakerConfigCustomizer} adjusts one named circuit
 * breaker). Declare it as a bean; the resource of its kind named {@link #name()} (for queue
 * pairs, also a queue pair prototype: each QP made from it) is created with what
 * {@link #customize} returns. Several customizers of one resource apply in bean order.
 *
 * <pre>{@code
 * @Bean
 * RdmaCustomizer<QueuePairOptions> rpcSignalsEverySend() {
 *     return RdmaCustomizer.queuePair("rpc", options -> options.withSignalAll(true));
 * }
 * }</pre>
 *
 * <p>A customizer adjusts settings, not wiring: the CQs, SRQ and completion channel a
 * declaration names are what the beans' destroy order follows, so changing them fails the start.
 * What the device's limits allow is checked against the declaration before anything is created;
 * a customized value beyond them fails when the verb refuses it (EINVAL), naming the resource's
 * property. A customizer whose name matches no declared resource of its kind fails the start.
 *
 * @param <T> the options type of the resource kind
 */
public interface RdmaCustomizer<T> {

    /** The kind of resource customized. */
    ResourceKind kind();

    /** The options type {@link #customize} takes and returns. */
    Class<T> optionsType();

    /** The name of the declared resource (its key under {@code rdma.devices}, which is its bean name). */
    String name();

    /** The options to create the resource with, given those its declaration (and earlier customizers) made. */
    T customize(T options);

    /** Customizes queue pair (or queue pair prototype) {@code name}: capabilities, {@code sq_sig_all}. */
    static RdmaCustomizer<QueuePairOptions> queuePair(String name, UnaryOperator<QueuePairOptions> customizer) {
        return new NamedCustomizer<>(ResourceKind.QUEUE_PAIR, QueuePairOptions.class, name, customizer);
    }

    /** Customizes completion queue {@code name}: entries, completion vector, timestamps. */
    static RdmaCustomizer<CompletionQueueOptions> completionQueue(String name,
                                                                  UnaryOperator<CompletionQueueOptions> customizer) {
        return new NamedCustomizer<>(ResourceKind.COMPLETION_QUEUE, CompletionQueueOptions.class, name, customizer);
    }

    /** Customizes shared receive queue {@code name}: {@code max_wr}, {@code max_sge}, {@code srq_limit}. */
    static RdmaCustomizer<SharedReceiveQueueAttributes> sharedReceiveQueue(
            String name, UnaryOperator<SharedReceiveQueueAttributes> customizer) {
        return new NamedCustomizer<>(ResourceKind.SHARED_RECEIVE_QUEUE, SharedReceiveQueueAttributes.class, name,
                customizer);
    }

    /** Customizes completion counter {@code name}: its memory (provider or external). */
    static RdmaCustomizer<CompletionCounterOptions> completionCounter(String name,
                                                                      UnaryOperator<CompletionCounterOptions> customizer) {
        return new NamedCustomizer<>(ResourceKind.COMPLETION_COUNTER, CompletionCounterOptions.class, name,
                customizer);
    }
}
