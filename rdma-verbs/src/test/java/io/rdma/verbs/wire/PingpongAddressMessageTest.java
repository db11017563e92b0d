package io.rdma.verbs.wire;

import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.QueuePairEndpoint;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PingpongAddressMessageTest {

    /** What ibv_rc_pingpong -g 1 on rxe0 sent in the guest (QPN 0x11, PSN 0xd911ed, GID ::ffff:10.77.0.1). */
    private static final byte[] FROM_IBV_RC_PINGPONG =
            "0000:000011:d911ed:00000000000000000000ffff0a4d0001\0".getBytes(StandardCharsets.US_ASCII);
    private static final QueuePairEndpoint ENDPOINT =
            new QueuePairEndpoint(0x11, 0, Gid.parse("::ffff:10.77.0.1"), 0xd911ed);

    @Test
    void encodesAsRcPingpongsSprintfWithItsNul() {
        assertThat(PingpongAddressMessage.encode(ENDPOINT)).hasSize(PingpongAddressMessage.LENGTH)
                .isEqualTo(FROM_IBV_RC_PINGPONG);
    }

    @Test
    void decodesWhatRcPingpongSends() {
        assertThat(PingpongAddressMessage.decode(FROM_IBV_RC_PINGPONG)).isEqualTo(ENDPOINT);
    }

    @Test
    void keepsTheGidsBytesInMemoryOrder() {
        Gid linkLocal = Gid.parse("fe80::5054:ff:fe12:3456");
        byte[] message = PingpongAddressMessage.encode(new QueuePairEndpoint(0xabcdef, 0xbeef, linkLocal, 0x123456));

        assertThat(new String(message, StandardCharsets.US_ASCII))
                .isEqualTo("beef:abcdef:123456:fe80000000000000505400fffe123456\0");
        assertThat(PingpongAddressMessage.decode(message).gid()).isEqualTo(linkLocal);
    }

    @Test
    void refusesAMessageWithoutItsNulOrFields() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PingpongAddressMessage.decode(Arrays.copyOf(FROM_IBV_RC_PINGPONG, 51)))
                .withMessageContaining("51 bytes");
        byte[] shortPsn = "0000:000011:d911e:00000000000000000000ffff0a4d0001\0\0".getBytes(StandardCharsets.US_ASCII);
        assertThatIllegalArgumentException().isThrownBy(() -> PingpongAddressMessage.decode(shortPsn));
    }

    @Test
    void refusesAQpnWiderThanItsField() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PingpongAddressMessage.encode(new QueuePairEndpoint(0x1000000, 0, Gid.ZERO, 0)))
                .withMessageContaining("QPN 0x1000000");
    }
}
