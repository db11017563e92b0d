package io.rdma.spring.config;

import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.completion.CompletionRouter;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.RdmaInstanceChooser;
import io.rdma.spring.connection.RdmaServiceDiscovery;
import io.rdma.spring.convert.RdmaMessageConversion;
import io.rdma.spring.event.RdmaAsyncEventPublisher;
import io.rdma.spring.listener.ChannelReceivers;
import io.rdma.spring.listener.RdmaListenerEndpointRegistry;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.spring.template.RdmaTemplateObservationConvention;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Fallback;

/**
 * The programming model's beans, made from the application's {@link RdmaResources} bean, as the
 * Boot auto-configuration makes them from {@code rdma.*} properties: completion routing and one
 * poller per declared completion queue, the registry of channels and their receivers, the
 * {@link RdmaTemplate}, the message conversion, the listener containers and the processor that
 * finds {@code @RdmaListener} methods, the declared connections, and the publisher of async
 * events. Imported by {@link EnableRdma}.
 *
 * <p>What the application may add as beans of its own: an {@link ObservationRegistry} and an
 * {@link RdmaTemplateObservationConvention} (the template's observations), an
 * {@link RdmaServiceDiscovery} (without one, a connection to a discovered service fails the
 * start) and an {@link RdmaInstanceChooser} (the first instance listed otherwise), and an
 * {@link RdmaMessageConversion} of its own, which is used instead of the default one (that is a
 * {@link Fallback} bean). Settings that the auto-configuration reads from properties are set on
 * the beans: {@link RdmaTemplate#setDefaultReplyTimeout}, and
 * {@link RdmaListenerEndpointRegistry#setShutdownTimeout} (30 s unless set).
 */
@Configuration(proxyBeanMethods = false)
@Import(RdmaListenerBootstrapConfiguration.class)
public final class RdmaConfiguration {

    @Bean
    CompletionRouter rdmaCompletionRouter() {
        return new CompletionRouter();
    }

    @Bean
    CompletionPollers rdmaCompletionPollers(RdmaResources resources, CompletionRouter router) {
        return new CompletionPollers(resources, router);
    }

    @Bean
    RdmaChannels rdmaChannels(RdmaResources resources) {
        return new RdmaChannels(resources);
    }

    @Bean
    ChannelReceivers rdmaChannelReceivers(RdmaChannels channels, CompletionRouter router) {
        return new ChannelReceivers(channels, router);
    }

    @Bean
    RdmaTemplate rdmaTemplate(RdmaChannels channels, CompletionRouter router, ChannelReceivers receivers,
                              RdmaMessageConversion conversion,
                              ObjectProvider<ObservationRegistry> observationRegistry,
                              ObjectProvider<RdmaTemplateObservationConvention> observationConvention) {
        RdmaTemplate template = new RdmaTemplate(channels, router, receivers,
                observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP), observationConvention.getIfUnique());
        template.setMessageConversion(conversion);
        return template;
    }

    /** byte[], String (UTF-8), and JSON through Jackson's defaults where Jackson 3 is on the class path. */
    @Bean
    @Fallback
    RdmaMessageConversion rdmaMessageConversion() {
        return new RdmaMessageConversion();
    }

    @Bean
    RdmaListenerEndpointRegistry rdmaListenerEndpointRegistry() {
        return new RdmaListenerEndpointRegistry();
    }

    @Bean
    RdmaConnections rdmaConnections(RdmaResources resources, CompletionRouter router, CompletionPollers pollers,
                                    RdmaChannels channels, ApplicationEventPublisher events,
                                    ObjectProvider<RdmaServiceDiscovery> discovery,
                                    ObjectProvider<RdmaInstanceChooser> chooser) {
        // without discovery, a connection to a service fails the start in RdmaConnections.start, naming it
        return new RdmaConnections(resources, router, pollers, channels, events, discovery.getIfUnique(),
                chooser.getIfUnique(RdmaInstanceChooser::firstListed));
    }

    @Bean
    RdmaAsyncEventPublisher rdmaAsyncEventPublisher(RdmaResources resources, ApplicationEventPublisher events) {
        return new RdmaAsyncEventPublisher(resources, events);
    }
}
