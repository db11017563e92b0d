package io.rdma.boot.test;

import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Exposes the simulated fabric's {@link FabricControl} to tests annotated {@link SimulatedRdma}. */
@Configuration(proxyBeanMethods = false)
class FabricControlConfiguration {

    @Bean
    FabricControl rdmaFabricControl(Verbs verbs) {
        return verbs.extension(FabricControl.class).orElseThrow(() -> new IllegalStateException("provider '" + verbs.providerName()
                + "' offers no fault injection; @SimulatedRdma selects the simulated fabric"));
    }
}
