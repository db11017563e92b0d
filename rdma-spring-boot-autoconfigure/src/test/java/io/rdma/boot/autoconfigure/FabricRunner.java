package io.rdma.boot.autoconfigure;

import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;

import java.io.IOException;
import java.util.Map;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/** Context runners for the RDMA auto-configuration, with fabrics described in YAML as users write them. */
public final class FabricRunner {

    private FabricRunner() {
    }

    public static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class))
                .withPropertyValues("rdma.provider=simulated");
    }

    /** A runner whose environment holds {@code fabrics/<name>.yml} below the runner's own property values. */
    public static ApplicationContextRunner runner(String fabric) {
        return runner().withInitializer(context -> {
            try {
                new YamlPropertySourceLoader().load(fabric, new ClassPathResource("fabrics/" + fabric + ".yml"))
                        .forEach(source -> context.getEnvironment().getPropertySources().addLast(source));
            } catch (IOException e) {
                throw new IllegalStateException("cannot read fabric " + fabric, e);
            }
        });
    }

    /** The first exception of {@code type} in the cause chain of {@code failure}. */
    public static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the cause chain of " + failure, failure);
    }

    /** Nothing the provider created is still alive. */
    public static void assertNoLiveObjects(Verbs verbs) {
        Map<ResourceKind, Long> live = verbs.liveObjects();
        assertThat(live).as("live objects after the context closed").allSatisfy((kind, count) ->
                assertThat(count).as(kind.name()).isZero());
    }
}
