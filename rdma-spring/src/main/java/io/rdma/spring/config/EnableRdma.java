package io.rdma.spring.config;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Turns on the RDMA programming model in plain Spring, without Boot (as {@code @EnableKafka}
 * does for spring-kafka): the {@code RdmaTemplate}, {@code @RdmaListener} methods and their
 * containers, completion polling, declared connections and async events, on the
 * {@code RdmaResources} bean the application defines ({@code RdmaResources.builder(verbs)}).
 * {@link RdmaConfiguration} lists the beans. Under Spring Boot the starter's auto-configuration
 * does all of this from {@code rdma.*} properties instead: do not use both.
 *
 * <pre>{@code
 * @Configuration
 * @EnableRdma
 * class RdmaSetup {
 *     @Bean Verbs verbs() { return Verbs.open(ProviderKind.AUTO); }
 *     @Bean DeviceContext device(Verbs verbs) { return verbs.devices().getFirst().open(); }
 *     @Bean RdmaResources rdmaResources(Verbs verbs, DeviceContext device) { ... RdmaResources.builder(verbs)...build(); }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(RdmaConfiguration.class)
public @interface EnableRdma {
}
