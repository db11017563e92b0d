package io.rdma.spring;

import io.rdma.spring.config.EnableRdma;
import io.rdma.spring.resource.RdmaResources;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A plain Spring application on a {@link SimulatedLoopback}, with no Boot: {@link EnableRdma} and
 * the {@code RdmaResources} bean, as docs/plain-spring.md shows it.
 */
@Configuration(proxyBeanMethods = false)
@EnableRdma
public class PlainRdmaConfiguration {

    /** Closed by Spring (it is AutoCloseable) after the beans that use its resources. */
    @Bean
    SimulatedLoopback loopback() {
        return new SimulatedLoopback();
    }

    @Bean
    RdmaResources rdmaResources(SimulatedLoopback loopback) {
        return loopback.resources();
    }

    /** A refreshed context of this configuration and {@code components} (listener beans, an error handler, ...). */
    public static AnnotationConfigApplicationContext run(Class<?>... components) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.register(PlainRdmaConfiguration.class);
        context.register(components);
        context.refresh();
        return context;
    }
}
