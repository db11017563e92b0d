package io.rdma.boot.autoconfigure.naming;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.spring.naming.UnknownRdmaNameException;
import io.rdma.spring.resource.ConnectionPlan.ListenerPlan;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.QueuePair;

import java.util.List;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A name written in code that names nothing declared fails the start with an analysis naming
 * where it was written, the nearest declared name and all of them. The names are checked as the
 * listener containers check theirs: against the declared resources, by a bean as it starts, so
 * the exception reaches Boot wrapped in "Failed to start bean".
 */
class UnknownRdmaNameFailureAnalyzerTests {

    private static final String DEVICE = RdmaContextRunners.DEVICE_PROPERTY;
    private static final String PD = DEVICE + ".protection-domains.pd0";
    private static final String LISTENERS = "rdma.connections.listeners";
    private static final String QUEUE_PAIRS = "rdma.devices.<device>.protection-domains.<protection-domain>.queue-pairs";
    private static final String GREET = "com.example.Greeter.greet(String)";

    /** Two queue pairs, a prototype and two connection listeners of it (as getting-started names them). */
    private static final String[] DECLARED = {
            DEVICE + ".completion-queues.cq.entries=256",
            PD + ".memory-pools.buffers.buffer-size=1KiB",
            PD + ".memory-pools.buffers.count=16",
            PD + ".queue-pairs.greeter.max-send-wr=8", PD + ".queue-pairs.greeter.max-recv-wr=8",
            PD + ".queue-pairs.rpc.max-send-wr=8", PD + ".queue-pairs.rpc.max-recv-wr=8",
            PD + ".queue-pair-prototypes.peer.max-send-wr=8", PD + ".queue-pair-prototypes.peer.max-recv-wr=8",
            LISTENERS + ".greetings.queue-pair-prototype=peer", LISTENERS + ".greetings.port=0",
            LISTENERS + ".greetings.max-connections=2",
            LISTENERS + ".kv.queue-pair-prototype=peer", LISTENERS + ".kv.port=0", LISTENERS + ".kv.max-connections=2",
    };

    @Test
    void misspeltConnectionListenerOffersTheNearestAndListsThemAll() {
        FailureAnalysis analysis = startFailsOn(new WrittenName("connection listener", "greeting",
                "@RdmaListener(connectionListener) on " + GREET, UnknownRdmaNameFailureAnalyzerTests::listeners,
                LISTENERS));
        assertThat(analysis.getDescription()).isEqualTo("""
                The connection listener 'greeting' is not declared. Did you mean 'greetings'?

                    Site:     @RdmaListener(connectionListener) on com.example.Greeter.greet(String)
                    Declared: [greetings, kv] (in rdma.connections.listeners)
                """);
        assertThat(analysis.getAction()).isEqualTo("Change 'greeting' to 'greetings' in @RdmaListener(connectionListener)"
                + " on " + GREET + ", or declare connection listener 'greeting' in rdma.connections.listeners.");
    }

    @Test
    void misspeltQueuePairOffersTheNearestAndListsThemAll() {
        FailureAnalysis analysis = startFailsOn(new WrittenName("queue pair", "greeterr",
                "@RdmaListener(queuePair) on " + GREET, UnknownRdmaNameFailureAnalyzerTests::queuePairs, QUEUE_PAIRS));
        assertThat(analysis.getDescription()).startsWith("The queue pair 'greeterr' is not declared. Did you mean"
                + " 'greeter'?\n").contains("    Declared: [greeter, rpc] (in " + QUEUE_PAIRS + ")\n");
        assertThat(analysis.getAction()).startsWith("Change 'greeterr' to 'greeter' in @RdmaListener(queuePair) on "
                + GREET + ",");
    }

    @Test
    void nameNearNothingListsTheDeclaredNamesOnly() {
        FailureAnalysis analysis = startFailsOn(new WrittenName("queue pair", "orders",
                "@RdmaListener(queuePair) on " + GREET, UnknownRdmaNameFailureAnalyzerTests::queuePairs, QUEUE_PAIRS));
        assertThat(analysis.getDescription()).startsWith("The queue pair 'orders' is not declared.\n")
                .doesNotContain("Did you mean").contains("    Declared: [greeter, rpc] (in " + QUEUE_PAIRS + ")\n");
        assertThat(analysis.getAction()).isEqualTo("Change 'orders' in @RdmaListener(queuePair) on " + GREET
                + " to one of [greeter, rpc], or declare queue pair 'orders' in " + QUEUE_PAIRS + ".");
    }

    @Test
    void theAnalyzerIsRegisteredForBootToFind() {
        List<FailureAnalyzer> registered = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage(
                        (message, failure) -> { })); // Boot's own analyzers need constructor arguments: left out
        assertThat(registered).hasAtLeastOneElementOfType(UnknownRdmaNameFailureAnalyzer.class);
    }

    private static List<String> listeners(RdmaResources resources) {
        return resources.connections().listeners().stream().map(ListenerPlan::name).toList();
    }

    private static List<String> queuePairs(RdmaResources resources) {
        return resources.resources(QueuePair.class).stream().map(RdmaResources.Named::name).toList();
    }

    /** Starts {@link #DECLARED} with a bean checking {@code written} as it starts; returns the analysis of the failure. */
    private static FailureAnalysis startFailsOn(WrittenName written) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        RdmaContextRunners.runner().withPropertyValues(DECLARED)
                .withBean(NameCheckedAtStart.class, written)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).isNotInstanceOf(UnknownRdmaNameException.class)
                            .hasMessageContaining("Failed to start bean");
                    analysis[0] = new UnknownRdmaNameFailureAnalyzer().analyze(context.getStartupFailure());
                });
        assertThat(analysis[0]).isNotNull();
        return analysis[0];
    }

    /** A name as written in code, the declared names of its kind and where they are declared. */
    record WrittenName(String kind, String name, String site, Function<RdmaResources, List<String>> declared,
                       String declaredIn) {
    }

    /** Checks a name written in code against the declared ones as it starts, as a listener container does. */
    static final class NameCheckedAtStart implements SmartLifecycle {

        private final WrittenName written;
        private final RdmaResources resources;
        private boolean running;

        NameCheckedAtStart(WrittenName written, RdmaResources resources) {
            this.written = written;
            this.resources = resources;
        }

        @Override
        public void start() {
            List<String> declared = written.declared().apply(resources);
            if (!declared.contains(written.name())) {
                throw new UnknownRdmaNameException(written.kind(), written.name(), written.site(), declared,
                        written.declaredIn());
            }
            running = true;
        }

        @Override
        public void stop() {
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }
    }
}
