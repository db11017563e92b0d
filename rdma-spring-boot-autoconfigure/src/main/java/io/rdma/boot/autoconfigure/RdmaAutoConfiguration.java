package io.rdma.boot.autoconfigure;

import io.rdma.boot.autoconfigure.fabric.RdmaResourceRegistrar;
import io.rdma.verbs.api.Verbs;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

/**
 * Builds the fabric declared under {@code rdma}: the provider's device list, one bean per
 * declared resource, and the {@code rdmaFabric} bean that knows them all.
 */
@AutoConfiguration
@ConditionalOnClass(Verbs.class)
@ConditionalOnBooleanProperty(name = "rdma.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RdmaProperties.class)
@Import(RdmaResourceRegistrar.class)
public final class RdmaAutoConfiguration {
}
