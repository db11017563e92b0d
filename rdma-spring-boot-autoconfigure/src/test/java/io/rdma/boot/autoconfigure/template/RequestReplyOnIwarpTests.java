package io.rdma.spring.template;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.TransportType;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Request/reply over rdma_cm on an iWARP device, whose transport has no immediate data
 * (RFC 5040): the correlation id travels in the in-band header ({@link RdmaWireFormat}), so
 * {@code sendAndReceive} to a listener works there as on InfiniBand, and a listener that throws
 * answers with an error; the application's own immediate data is refused at the call, naming the
 * channel and the device, instead of failing at {@code ibv_post_send} with EINVAL. Runs on siw0 in
 * the Soft-iWARP guest, and on the simulated fabric with its device described as iWARP; skipped
 * on a native device of the InfiniBand transport.
 */
class RequestReplyOnIwarpTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void requestReplyTravelsInBandAndTheApplicationsImmediateDataIsRefused() {
        iwarpRunner().withUserConfiguration(Echo.class).run(context -> {
            DeviceContext device = context.getBean(DeviceContext.class);
            assertThat(device.device().transportType()).isEqualTo(TransportType.IWARP);
            RdmaChannels channels = context.getBean(RdmaChannels.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                RdmaChannel client = channels.get("client");
                return client != null && client.state() == ChannelState.UP;
            });
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            for (int i = 0; i < 20; i++) {
                assertThat(template.sendAndReceive("client", bytes("hello " + i), TIMEOUT).get(60, TimeUnit.SECONDS))
                        .asString(StandardCharsets.UTF_8).isEqualTo("HELLO " + i);
            }
            assertThatThrownBy(() -> template.sendAndReceive("client", bytes("fail"), TIMEOUT).get(60, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RdmaRemoteException.class)
                    .hasMessageContaining("IllegalArgumentException").hasMessageContaining("asked to fail");

            assertThatThrownBy(() -> template.send("client", bytes("hi"), 7).get(60, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOf(ImmediateDataUnsupportedException.class)
                    .hasMessageContaining("channel 'client'").hasMessageContaining(device.deviceName());
            assertThat(template.lateReplies()).isZero();
        });
    }

    /** The connected declaration on the device under test: siw0 as it is, a simulated device described as iWARP. */
    private static ApplicationContextRunner iwarpRunner() {
        ApplicationContextRunner runner = RdmaContextRunners.runner("connected");
        if (RdmaContextRunners.PROVIDER == ProviderKind.SIMULATED) {
            String device = "rdma.simulated.devices." + RdmaContextRunners.DEVICE;
            return runner.withPropertyValues(device + ".transport=iwarp", device + ".link-layer=ethernet");
        }
        assumeTrue(RdmaContextRunners.deviceIsIwarp(),
                RdmaContextRunners.DEVICE + " is of the InfiniBand transport, which carries immediate data");
        return runner;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static class Echo {
        @RdmaListener(connectionListener = "echo")
        String upperCase(String request) {
            if (request.equals("fail")) {
                throw new IllegalArgumentException("asked to fail");
            }
            return request.toUpperCase(Locale.ROOT);
        }
    }
}
