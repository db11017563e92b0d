package io.rdma.boot.autoconfigure;

import io.rdma.boot.autoconfigure.ResourceLifecycleRecorder.Destruction;
import io.rdma.boot.autoconfigure.resource.CheckedResourcePlan;
import io.rdma.boot.autoconfigure.resource.RdmaResourceCreationException;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.CompletionChannel;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Flow;
import io.rdma.verbs.api.FlowCounters;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SharedReceiveQueue;
import io.rdma.verbs.api.Verbs;

import java.util.Comparator;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The declared resources as beans: their names, types, wiring, creation and destruction order,
 * also when the start fails half-way. Each subclass starts the contexts its own way
 * ({@link #start()}): {@link RdmaAutoConfigurationTests} as {@code ApplicationContextRunner} does,
 * {@link RdmaAutoConfigurationAotTests} as an application compiled ahead of time.
 */
abstract class DeclaredResourceBeansTests {

    /** How this class's contexts are started. */
    abstract ContextStart start();

    @Test
    void everyDeclaredResourceIsABeanNamedAfterItsKey() {
        start().run(RdmaContextRunners.runner("full"), context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(Verbs.class).hasSingleBean(RdmaResources.class)
                    .hasSingleBean(DeviceContext.class).hasSingleBean(ProtectionDomain.class)
                    .hasSingleBean(MemoryPool.class).hasSingleBean(SharedReceiveQueue.class)
                    .hasSingleBean(CompletionChannel.class);
            assertThat(context.getBean(Verbs.class).providerName()).isEqualToIgnoringCase(RdmaContextRunners.PROVIDER.name());
            assertThat(context.getBean(RdmaContextRunners.DEVICE, DeviceContext.class).deviceName())
                    .isEqualTo(RdmaContextRunners.DEVICE);
            assertThat(context.getBeansOfType(CompletionQueue.class)).containsOnlyKeys("cq0", "cq1");
            assertThat(context.getBeansOfType(CompletionCounter.class)).containsOnlyKeys("sends", "recvs");
            assertThat(context.getBeansOfType(QueuePair.class)).containsOnlyKeys("rpc", "shared");
            assertThat(context.getBean("cq1.channel")).isInstanceOf(CompletionChannel.class);
            QueuePair rpc = context.getBean("rpc", QueuePair.class);
            assertThat(rpc.type()).isEqualTo(QueuePairType.RC);
            assertThat(rpc.sendCompletionQueue()).isSameAs(context.getBean("cq0"));
            assertThat(rpc.receiveCompletionQueue()).isSameAs(context.getBean("cq1"));
            assertThat(rpc.capabilities().maxInlineData()).isGreaterThanOrEqualTo(64);
            assertThat(context.getBean("sends", CompletionCounter.class).attachedQueuePairs()).containsExactly(rpc);
            assertThat(context.getBean("shared", QueuePair.class).sharedReceiveQueue())
                    .containsSame(context.getBean("srq0", SharedReceiveQueue.class));
            assertThat(context.getBean("buffers", MemoryPool.class).bufferSize()).isEqualTo(4096);
            assertThat(context.getBean("cq1", CompletionQueue.class).options().channel())
                    .isSameAs(context.getBean("cq1.channel"));
            assertThat(context.getBean(RdmaResources.class).resources()).hasSize(11);
            // the parents each declares: Spring creates them first and destroys them after it
            assertThat(context.getBeanFactory().getDependenciesForBean("rpc"))
                    .contains("pd0", "cq0", "cq1", "sends", "recvs");
            assertThat(context.getBeanFactory().getDependenciesForBean("cq1"))
                    .contains(RdmaContextRunners.DEVICE, "cq1.channel");
        });
    }

    @Test
    void aFlowAndItsCountersAreBeansDestroyedBeforeTheirQueuePair() {
        RdmaContextRunners.assumeDevice(DeviceAttributes::flowCounters, "the device has no flow counters");
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        start().run(RdmaContextRunners.runner("flows"), recorder, context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(Flow.class).hasSingleBean(FlowCounters.class);
            assertThat(context.getBean("ingress.counters")).isInstanceOf(FlowCounters.class);
            assertThat(context.getBean("raw0", QueuePair.class).type()).isEqualTo(QueuePairType.RAW_PACKET);
        });
        assertThat(recorder.destroyedNames()).containsExactly("ingress", "raw0", "cq0", "ingress.counters", "pd0",
                RdmaContextRunners.DEVICE);
        assertThat(recorder.destroyed()).allSatisfy(destruction -> assertThat(destruction.openDependents())
                .as("resources still open that depend on %s when it was destroyed", destruction.name()).isEmpty());
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * A declared queue pair is made anew from its declaration, as a reconnection makes it: on the
     * same PD and CQs with the same type and capabilities; from then on its name finds the new one
     * while its bean stays the first.
     */
    @Test
    void aDeclaredQueuePairIsMadeAnewFromItsDeclaration() {
        start().run(RdmaContextRunners.runner("full"), context -> {
            assertThat(context).hasNotFailed();
            RdmaResources resources = context.getBean(RdmaResources.class);
            QueuePair bean = context.getBean("rpc", QueuePair.class);
            assertThat(resources.isRenewable("rpc")).isTrue();

            QueuePair fresh = resources.renew("rpc");
            try {
                assertThat(fresh).isNotSameAs(bean);
                assertThat(fresh.qpNumber()).isNotEqualTo(bean.qpNumber());
                assertThat(fresh.type()).isEqualTo(bean.type());
                assertThat(fresh.protectionDomain()).isSameAs(bean.protectionDomain());
                assertThat(fresh.sendCompletionQueue()).isSameAs(bean.sendCompletionQueue());
                assertThat(fresh.receiveCompletionQueue()).isSameAs(bean.receiveCompletionQueue());
                assertThat(fresh.capabilities()).isEqualTo(bean.capabilities());
                assertThat(resources.resource("rpc").orElseThrow().resource()).isSameAs(fresh);
                assertThat(resources.declarationOf(fresh)).get().extracting(RdmaResources.ManagedResource::name)
                        .isEqualTo("rpc");
                assertThat(resources.declarationOf(bean)).isEmpty();
                assertThat(resources.isRenewed(fresh)).isTrue();
                assertThat(resources.isRenewed(bean)).isFalse();
                assertThat(context.getBean("rpc")).isSameAs(bean);
            } finally {
                fresh.close();
            }
        });
    }

    /** One that a flow steers packets to is not made anew: a flow is made for one queue pair. */
    @Test
    void aQueuePairAFlowSteersToIsNotMadeAnew() {
        RdmaContextRunners.assumeDevice(DeviceAttributes::flowCounters, "the device has no flow counters");
        start().run(RdmaContextRunners.runner("flows"), context -> {
            assertThat(context).hasNotFailed();
            RdmaResources resources = context.getBean(RdmaResources.class);
            assertThat(resources.isRenewable("raw0")).as("a flow steers to it").isFalse();
            assertThatIllegalArgumentException().isThrownBy(() -> resources.renew("raw0"))
                    .withMessageContaining("'raw0' cannot be made anew");
        });
    }

    @Test
    void resourcesAreInjectableByQualifier() {
        start().run(RdmaContextRunners.runner("full").withUserConfiguration(QualifiedUserConfiguration.class), context -> {
            assertThat(context).hasNotFailed();
            QualifiedUser user = context.getBean(QualifiedUser.class);
            assertThat(user.rpc()).isSameAs(context.getBean("rpc"));
            assertThat(user.buffers()).isSameAs(context.getBean("buffers"));
        });
    }

    @Test
    void destructionIsTheReverseOfCreationInLibibverbsOrder() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        start().run(RdmaContextRunners.runner("full"), recorder, context -> assertThat(context).hasNotFailed());

        List<String> required = List.of("shared", "rpc", "srq0", "cq1", "cq0", "cq1.channel", "recvs", "sends",
                "buffers", "pd0", RdmaContextRunners.DEVICE);
        assertThat(recorder.destroyedNames()).containsExactlyElementsOf(required);
        assertThat(recorder.destroyedNames()).containsExactlyElementsOf(recorder.created().reversed());
        assertThat(recorder.destroyed()).extracting(Destruction::kind)
                .isSortedAccordingTo(Comparator.comparingInt(ResourceKind::destroyRank));
        assertThat(recorder.destroyed()).allSatisfy(destruction -> assertThat(destruction.openDependents())
                .as("resources still open that depend on %s when it was destroyed", destruction.name()).isEmpty());
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /** Simulated only: the fifth QP fails by fault injection. */
    @Test
    @SimulatedOnly
    void aStartupFailingAtTheFifthQueuePairDestroysWhatItCreatedInReverse() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder().failQueuePairAfter(4);
        start().run(RdmaContextRunners.simulatedRunner("eight-queue-pairs"), recorder, context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("ibv_create_qp")
                            .hasMessageContaining("ENOMEM");
                    RdmaResourceCreationException failure = RdmaContextRunners.cause(context.getStartupFailure(),
                            RdmaResourceCreationException.class);
                    assertThat(failure.resourceName()).isEqualTo("qp5");
                    assertThat(failure.property()).isEqualTo("rdma.devices." + RdmaContextRunners.DECLARED_DEVICE + ".protection-domains.pd0.queue-pairs.qp5");
                    assertThat(failure.verbsFailure().errno()).isEqualTo(Errno.ENOMEM);
                    assertThat(failure).hasMessageContaining("qp5").hasMessageContaining(failure.property());
                });
        assertThat(recorder.created()).endsWith("qp1", "qp2", "qp3", "qp4");
        assertThat(recorder.destroyedNames()).containsExactly("qp4", "qp3", "qp2", "qp1", "cq0", "cq0.channel",
                "sends", "buffers", "pd0", "sim0");
        assertThat(recorder.destroyed()).allSatisfy(destruction ->
                assertThat(destruction.openDependents()).isEmpty());
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    void resourcesAreCreatedAtStartupUnderLazyInitializationToo() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        start().run(RdmaContextRunners.runner("full"), context -> {
            // what spring.main.lazy-initialization=true adds to an application's context
            context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor());
            recorder.registerIn(context);
        }, context -> {
            assertThat(context).hasNotFailed();
            assertThat(recorder.created()).contains(RdmaContextRunners.DEVICE, "pd0", "buffers", "cq0", "rpc", "shared");
            // not only because the completion pollers, a SmartLifecycle, need them: none is lazy
            assertThat(List.of(CheckedResourcePlan.VERBS_BEAN, RdmaContextRunners.DEVICE, "rpc", "buffers",
                    CheckedResourcePlan.RESOURCES_BEAN)).allSatisfy(name ->
                    assertThat(context.getBeanFactory().getBeanDefinition(name).isLazyInit()).as(name).isFalse());
        });
    }

    record QualifiedUser(QueuePair rpc, MemoryPool buffers) {
    }

    @Configuration(proxyBeanMethods = false)
    static class QualifiedUserConfiguration {

        @Bean
        QualifiedUser user(@Qualifier("rpc") QueuePair rpc, @Qualifier("buffers") MemoryPool buffers) {
            return new QualifiedUser(rpc, buffers);
        }
    }
}
