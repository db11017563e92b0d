package io.rdma.verbs.provider.ibverbs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** mlx5 writes board_id and hca_type; rxe writes neither, which reads as empty rather than failing. */
class SysfsDeviceIdentityTest {

    @Test
    void readsTheFilesTrimmed(@TempDir Path device) throws IOException {
        Files.writeString(device.resolve("board_id"), "MT_0000000010\n");
        Files.writeString(device.resolve("hca_type"), "MT4119\n");
        assertThat(SysfsDeviceIdentity.read(device.toString(), SysfsDeviceIdentity.BOARD_ID)).isEqualTo("MT_0000000010");
        assertThat(SysfsDeviceIdentity.read(device.toString(), SysfsDeviceIdentity.HCA_TYPE)).isEqualTo("MT4119");
    }

    @Test
    void aFileTheDriverLacksIsEmpty(@TempDir Path device) {
        assertThat(SysfsDeviceIdentity.read(device.toString(), SysfsDeviceIdentity.BOARD_ID)).isEmpty();
    }
}
