package io.rdma.boot.autoconfigure;

import io.rdma.boot.autoconfigure.endpoint.RdmaEndpointProperties;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every key of {@link RdmaProperties}, nested map values included (which the configuration
 * metadata cannot describe below a map), and of {@link RdmaEndpointProperties} appears in
 * docs/configuration.md.
 */
class ConfigurationDocumentationTests {

    @Test
    void everyPropertyIsDocumented() throws IOException {
        String reference = Files.readString(Path.of("..", "docs", "configuration.md"));
        List<String> keys = new ArrayList<>();
        for (Class<?> type : List.of(RdmaProperties.class, RdmaProperties.Simulated.class,
                RdmaProperties.SimulatedDevice.class, RdmaProperties.Device.class,
                RdmaProperties.QueuePairDefaults.class, RdmaProperties.CompletionQueue.class,
                RdmaProperties.CompletionCounter.class, RdmaProperties.ProtectionDomain.class,
                RdmaProperties.MemoryPool.class, RdmaProperties.SharedReceiveQueue.class,
                RdmaProperties.QueuePair.class, RdmaProperties.Flow.class, RdmaProperties.FlowMatch.class,
                RdmaProperties.Connections.class, RdmaProperties.ConnectionListener.class,
                RdmaProperties.OutboundConnection.class, RdmaProperties.Backoff.class, RdmaProperties.Shutdown.class,
                RdmaEndpointProperties.class, RdmaEndpointProperties.CounterWrites.class)) {
            for (Field field : type.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers())) {
                    keys.add(field.getName().replaceAll("([A-Z])", "-$1").toLowerCase());
                }
            }
        }
        assertThat(keys).hasSizeGreaterThan(50).allSatisfy(key -> assertThat(reference).contains(key));
    }
}
