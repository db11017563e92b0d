package io.rdma.spring.template;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.TransportType;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * On an iWARP device (siw0 in the Soft-iWARP guest), whose transport has no immediate data
 * (RFC 5040), what carries immediate data is refused at the call, naming the channel and the
 * device, instead of failing at {@code ibv_post_send} with EINVAL: request/reply (its correlation
 * id is the immediate data), a send with immediate data and an RDMA write with it.
 */
class ImmediateDataOnIwarpTests {

    private static final byte[] PAYLOAD = "hi".getBytes(StandardCharsets.UTF_8);

    @Test
    void whatCarriesImmediateDataIsRefusedAtTheCallOnIwarp() {
        RdmaContextRunners.runner("connected").run(context -> {
            DeviceContext device = context.getBean(DeviceContext.class);
            assumeTrue(device.device().transportType() == TransportType.IWARP,
                    device.deviceName() + " is " + device.device().transportType() + ", which carries immediate data");
            RdmaChannels channels = context.getBean(RdmaChannels.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                RdmaChannel client = channels.get("client");
                return client != null && client.state() == ChannelState.UP;
            });
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            refused(() -> template.sendAndReceive("client", PAYLOAD, Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS),
                    device);
            refused(() -> template.send("client", PAYLOAD, 7).get(5, TimeUnit.SECONDS), device);
        });
    }

    private static void refused(ThrowingCallable call, DeviceContext device) {
        assertThatThrownBy(call).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(ImmediateDataUnsupportedException.class)
                .hasMessageContaining("channel 'client'").hasMessageContaining(device.deviceName());
    }
}
