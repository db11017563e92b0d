package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** GUIDs as {@code ibv_devinfo} prints them ({@code node_guid: b8ce:f603:0012:3456}). */
class GuidTest {

    @Test
    void printsFourGroupsOfFourHexDigitsWhateverTheTopBit() {
        assertThat(new Guid(0xb8ce_f603_0012_3456L)).hasToString("b8ce:f603:0012:3456");
        assertThat(new Guid(0x5054_00ff_fe12_3456L)).hasToString("5054:00ff:fe12:3456");
        assertThat(new Guid(0)).hasToString("0000:0000:0000:0000");
        assertThat(new Guid(-1)).hasToString("ffff:ffff:ffff:ffff");
    }

    @Test
    void parsesWhatItPrints() {
        assertThat(Guid.parse("b8ce:f603:0012:3456")).isEqualTo(new Guid(0xb8ce_f603_0012_3456L));
        assertThat(Guid.parse("FFFF:ffff:FFFF:ffff").value()).isEqualTo(-1L);
    }

    @Test
    void refusesOtherForms() {
        assertThatIllegalArgumentException().isThrownBy(() -> Guid.parse("b8cef60300123456"));
        assertThatIllegalArgumentException().isThrownBy(() -> Guid.parse("b8ce:f603:0012:345"));
        assertThatIllegalArgumentException().isThrownBy(() -> Guid.parse("b8ce:f603:0012:34g6"));
    }
}
