package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class GidTest {

    @Test
    void parsesIpv6Literals() {
        Gid gid = Gid.parse("fe80::1");

        assertThat(gid.byteAt(0)).isEqualTo((byte) 0xfe);
        assertThat(gid.byteAt(1)).isEqualTo((byte) 0x80);
        assertThat(gid.byteAt(15)).isEqualTo((byte) 1);
        assertThat(gid.ipv4()).isEqualTo(-1);
        assertThat(gid).hasToString("fe80::1");
    }

    @Test
    void mapsIpv4AddressesAsRoceV2Does() {
        Gid dotted = Gid.parse("10.1.2.3");
        Gid mapped = Gid.parse("::ffff:10.1.2.3");

        assertThat(dotted).isEqualTo(mapped).hasSameHashCodeAs(mapped);
        assertThat(dotted.ipv4()).isEqualTo(0x0A010203L);
        assertThat(dotted.toBytes()).startsWith(new byte[10]).endsWith((byte) 0xff, (byte) 0xff, (byte) 10, (byte) 1,
                (byte) 2, (byte) 3);
    }

    @Test
    void printsAsIbvDevinfoDoes() {
        assertThat(Gid.parse("::ffff:10.77.0.1")).hasToString("::ffff:10.77.0.1");
        assertThat(Gid.parse("10.0.0.255")).hasToString("::ffff:10.0.0.255");
        assertThat(Gid.parse("fe80::5054:ff:fe12:3456")).hasToString("fe80::5054:ff:fe12:3456");
    }

    @Test
    void linkLocalGidEmbedsThePortGuid() {
        Gid gid = Gid.linkLocal(new Guid(0x0002_c903_00a1_b2c3L));

        assertThat(gid).isEqualTo(Gid.parse("fe80::2:c903:a1:b2c3"));
        assertThat(gid.isZero()).isFalse();
        assertThat(Gid.ZERO.isZero()).isTrue();
    }

    @Test
    void bytesAreCopiedInAndOut() {
        byte[] raw = new byte[Gid.LENGTH];
        raw[15] = 5;
        Gid gid = Gid.of(raw);
        raw[15] = 6;
        gid.toBytes()[15] = 7;

        assertThat(gid.byteAt(15)).isEqualTo((byte) 5);
    }

    @Test
    void refusesWhatIsNotAGid() {
        assertThatIllegalArgumentException().isThrownBy(() -> Gid.of(new byte[4])).withMessageContaining("16 bytes");
        assertThatIllegalArgumentException().isThrownBy(() -> Gid.parse("fe80::zz"))
                .withMessageContaining("fe80::zz");
    }

    @Test
    void ipv4MappedGidsPrintDotted() {
        assertThat(Gid.parse("10.77.0.1")).hasToString("::ffff:10.77.0.1");
        assertThat(Gid.parse("fe80::1")).hasToString("fe80::1");
    }
}
