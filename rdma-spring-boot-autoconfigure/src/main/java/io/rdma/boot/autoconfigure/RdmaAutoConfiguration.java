package io.rdma.boot.autoconfigure;

import io.rdma.boot.autoconfigure.preflight.NativeAccessCheck;
import io.rdma.boot.autoconfigure.resource.InvalidRdmaConfigurationException;
import io.rdma.boot.autoconfigure.resource.RdmaResourceRegistrar;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.config.RdmaListenerBootstrapConfiguration;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.RdmaInstanceChooser;
import io.rdma.spring.connection.RdmaServiceDiscovery;
import io.rdma.spring.event.RdmaAsyncEventPublisher;
import io.rdma.spring.convert.RdmaMessageConversion;
import io.rdma.spring.listener.ChannelReceivers;
import io.rdma.spring.listener.RdmaListenerEndpointRegistry;
import io.rdma.spring.resource.ConnectionPlan.ServicePlan;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.spring.template.RdmaTemplateObservationConvention;
import io.rdma.spring.completion.CompletionRouter;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.Verbs;

import java.time.Duration;
import java.util.List;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Builds the resources declared under {@code rdma}: the provider's device list, one bean per
 * declared resource, and the {@code rdmaResources} bean that knows them all; then delivers the
 * completions of every declared CQ while the application runs, brings up the declared
 * connections, offers the {@link RdmaTemplate} and {@code @RdmaListener} methods, and publishes
 * async events, port state changes and connection state changes as Spring application events
 * ({@code io.rdma.spring.event}). The template's operations are observed through the context's
 * {@link ObservationRegistry}, where there is one (Boot's observation auto-configuration makes it),
 * and tagged by its {@link RdmaTemplateObservationConvention} bean, where there is one. The {@code rdma.*} properties are bound once, as the resources
 * are registered, and everything at run time reads the checked plan made of them
 * ({@link RdmaResources}), never the raw properties.
 */
@AutoConfiguration
@ConditionalOnClass(Verbs.class)
@ConditionalOnBooleanProperty(name = "rdma.enabled", matchIfMissing = true)
@Import({RdmaResourceRegistrar.class, RdmaListenerBootstrapConfiguration.class})
public final class RdmaAutoConfiguration {

    /** Static: a bean factory post-processor, made before the configuration class itself. */
    @Bean
    static NativeAccessCheck rdmaNativeAccessCheck(Environment environment) {
        return new NativeAccessCheck(Binder.get(environment).bind(RdmaProperties.PREFIX + ".provider", ProviderKind.class)
                .orElse(ProviderKind.AUTO));
    }

    @Bean
    @ConditionalOnMissingBean
    CompletionRouter rdmaCompletionRouter() {
        return new CompletionRouter();
    }

    @Bean
    @ConditionalOnMissingBean
    CompletionPollers rdmaCompletionPollers(RdmaResources resources, CompletionRouter router) {
        return new CompletionPollers(resources, router);
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaChannels rdmaChannels(RdmaResources resources) {
        return new RdmaChannels(resources);
    }

    @Bean
    @ConditionalOnMissingBean
    ChannelReceivers rdmaChannelReceivers(RdmaChannels channels, CompletionRouter router) {
        return new ChannelReceivers(channels, router);
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaTemplate rdmaTemplate(RdmaChannels channels, CompletionRouter router, ChannelReceivers receivers,
                              RdmaMessageConversion conversion, Environment environment,
                              ObjectProvider<ObservationRegistry> observationRegistry,
                              ObjectProvider<RdmaTemplateObservationConvention> observationConvention) {
        RdmaTemplate template = new RdmaTemplate(channels, router, receivers,
                observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP), observationConvention.getIfUnique());
        template.setMessageConversion(conversion);
        Binder.get(environment).bind(RdmaProperties.PREFIX + ".template.reply-timeout", Duration.class)
                .ifBound(template::setDefaultReplyTimeout);
        return template;
    }

    /**
     * byte[], String (UTF-8), and JSON through the application's Jackson {@code JsonMapper} where
     * Boot made one (else Jackson's defaults, where Jackson is on the class path); declare an
     * {@code RdmaMessageConversion} bean of your own to convert otherwise.
     */
    @Bean
    @ConditionalOnMissingBean
    RdmaMessageConversion rdmaMessageConversion(BeanFactory beans) {
        return ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", getClass().getClassLoader())
                ? JsonConversion.withApplicationMapper(beans) : new RdmaMessageConversion();
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaListenerEndpointRegistry rdmaListenerEndpointRegistry(Environment environment) {
        RdmaListenerEndpointRegistry registry = new RdmaListenerEndpointRegistry();
        Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .ifBound(registry::setShutdownTimeout);
        return registry;
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaConnections rdmaConnections(RdmaResources resources, CompletionRouter router, CompletionPollers pollers,
                                    RdmaChannels channels, ApplicationEventPublisher events,
                                    ObjectProvider<RdmaServiceDiscovery> discovery,
                                    ObjectProvider<RdmaInstanceChooser> chooser) {
        RdmaServiceDiscovery found = discovery.getIfUnique();
        List<ServicePlan> services = resources.connections().services();
        if (found == null && !services.isEmpty()) {
            throw new InvalidRdmaConfigurationException(services.getFirst().property() + ".service", "the connection"
                    + " names service '" + services.getFirst().service() + "', and nothing finds a service's instances",
                    "Add Spring Cloud Commons and a discovery client (spring-cloud-starter-kubernetes-client,"
                            + " -consul-discovery, -netflix-eureka-client, or the simple one of spring-cloud-commons),"
                            + " or declare an RdmaServiceDiscovery bean; or connect to a host instead.");
        }
        return new RdmaConnections(resources, router, pollers, channels, events, found,
                chooser.getIfUnique(RdmaInstanceChooser::firstListed));
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaAsyncEventPublisher rdmaAsyncEventPublisher(RdmaResources resources, ApplicationEventPublisher events) {
        return new RdmaAsyncEventPublisher(resources, events);
    }
}
