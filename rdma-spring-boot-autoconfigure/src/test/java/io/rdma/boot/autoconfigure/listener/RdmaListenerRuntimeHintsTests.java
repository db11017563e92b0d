package io.rdma.spring.listener;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * AOT processing registers every {@code @RdmaListener} method of a bean for invocation (Spring's
 * {@code ReflectiveProcessorBeanFactoryInitializationAotProcessor} runs this registrar on every
 * bean class), since the listener processor finds and calls the methods reflectively.
 */
class RdmaListenerRuntimeHintsTests {

    @Test
    void aListenerMethodIsRegisteredForInvocation() {
        RuntimeHints hints = new RuntimeHints();
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, EchoListener.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(EchoListener.class, "echo")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(EchoListener.class, "notAListener"))
                .rejects(hints);
    }

    static class EchoListener {

        @RdmaListener(queuePair = "rpc")
        byte[] echo(byte[] request) {
            return request;
        }

        byte[] notAListener(byte[] request) {
            return request;
        }
    }
}
