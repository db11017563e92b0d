package io.rdma.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

/**
 * Runs a {@code @SpringBootTest} on the simulated fabric, whatever the application's
 * configuration and the machine offer, and makes the fabric's fault injection injectable as a
 * {@link io.rdma.verbs.provider.simulated.FabricControl} bean (port state, dropped packets, failed QPs, failing
 * verbs), so a service's RDMA paths are testable without hardware.
 *
 * <pre>{@code
 * @SpringBootTest
 * @SimulatedRdma
 * class EchoTests {
 *     @Autowired FabricControl fabric;
 *     ...
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@TestPropertySource(properties = "rdma.provider=simulated")
@Import(FabricControlConfiguration.class)
public @interface SimulatedRdma {
}
