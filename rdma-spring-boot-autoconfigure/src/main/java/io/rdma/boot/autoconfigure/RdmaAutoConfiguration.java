package io.rdma.boot.autoconfigure;

import io.rdma.boot.autoconfigure.completion.CompletionPollers;
import io.rdma.boot.autoconfigure.connection.InJvmConnectionManager;
import io.rdma.boot.autoconfigure.connection.RdmaConnections;
import io.rdma.boot.autoconfigure.listener.RdmaListenerProcessor;
import io.rdma.boot.autoconfigure.template.RdmaTemplate;
import io.rdma.boot.autoconfigure.completion.CompletionRouter;
import io.rdma.boot.autoconfigure.fabric.RdmaFabric;
import io.rdma.boot.autoconfigure.fabric.RdmaResourceRegistrar;
import io.rdma.verbs.api.Verbs;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Builds the fabric declared under {@code rdma}: the provider's device list, one bean per
 * declared resource, and the {@code rdmaFabric} bean that knows them all; then delivers the
 * completions of every declared CQ while the application runs, brings up the declared
 * connections, and offers the {@link RdmaTemplate} and {@code @RdmaListener} methods.
 */
@AutoConfiguration
@ConditionalOnClass(Verbs.class)
@ConditionalOnBooleanProperty(name = "rdma.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RdmaProperties.class)
@Import(RdmaResourceRegistrar.class)
public final class RdmaAutoConfiguration {

    @Bean
    @ConfigurationPropertiesBinding
    static BinaryDataSizeConverter rdmaBinaryDataSizeConverter() {
        return new BinaryDataSizeConverter();
    }

    @Bean
    @ConditionalOnMissingBean
    CompletionRouter rdmaCompletionRouter() {
        return new CompletionRouter();
    }

    @Bean
    @ConditionalOnMissingBean
    CompletionPollers rdmaCompletionPollers(RdmaFabric fabric, CompletionRouter router, RdmaProperties properties) {
        return new CompletionPollers(fabric, router, properties);
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaTemplate rdmaTemplate(RdmaFabric fabric, CompletionRouter router) {
        return new RdmaTemplate(fabric, router);
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaConnections rdmaConnections(RdmaFabric fabric, RdmaProperties properties) {
        return new RdmaConnections(fabric, properties, InJvmConnectionManager.shared());
    }

    @Bean
    static RdmaListenerProcessor rdmaListenerProcessor(ObjectProvider<RdmaFabric> fabric,
                                                       ObjectProvider<CompletionRouter> router,
                                                       ObjectProvider<RdmaTemplate> template) {
        return new RdmaListenerProcessor(fabric, router, template);
    }
}
