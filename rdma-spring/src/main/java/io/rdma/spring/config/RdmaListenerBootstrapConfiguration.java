package io.rdma.spring.config;

import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.convert.RdmaMessageConversion;
import io.rdma.spring.listener.ChannelReceivers;
import io.rdma.spring.listener.RdmaListenerEndpointRegistry;
import io.rdma.spring.listener.RdmaListenerProcessor;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.template.RdmaTemplate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The post-processor that finds {@code @RdmaListener} methods and makes their containers, as
 * spring-kafka's {@code KafkaBootstrapConfiguration}: imported by {@link EnableRdma}'s
 * configuration and by the Boot auto-configuration alike, so the two cannot differ in how listeners
 * are found.
 */
@Configuration(proxyBeanMethods = false)
public final class RdmaListenerBootstrapConfiguration {

    /** Static: a bean post-processor, made before the configuration class itself; what it needs is looked up lazily. */
    @Bean
    static RdmaListenerProcessor rdmaListenerProcessor(ObjectProvider<RdmaResources> resources,
                                                       ObjectProvider<RdmaChannels> channels,
                                                       ObjectProvider<ChannelReceivers> receivers,
                                                       ObjectProvider<RdmaTemplate> template,
                                                       ObjectProvider<RdmaMessageConversion> conversion,
                                                       ObjectProvider<RdmaListenerEndpointRegistry> registry) {
        return new RdmaListenerProcessor(resources, channels, receivers, template, conversion, registry);
    }
}
