package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** The hints an application compiled ahead of time gets from {@code META-INF/spring/aot.factories}. */
class ResourceRegistrationRuntimeHintsTests {

    private final RuntimeHints hints = registeredHints();

    private static RuntimeHints registeredHints() {
        RuntimeHints hints = new RuntimeHints();
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                .load(RuntimeHintsRegistrar.class)
                .forEach(registrar -> registrar.registerHints(hints, ResourceRegistrationRuntimeHintsTests.class.getClassLoader()));
        return hints;
    }

    @Test
    void theConfigurationMetadataThatUnknownKeysAreCheckedAgainstIsAResource() {
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/spring-configuration-metadata.json"))
                .accepts(hints);
    }

    @Test
    void thePropertiesTheRegistrarBindsAreBindableDownToTheirNestedClasses() {
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RdmaProperties.class, "setProvider"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RdmaProperties.QueuePair.class, "setMaxSendWr"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RdmaProperties.MemoryPool.class, "getBufferSize"))
                .accepts(hints);
    }
}
