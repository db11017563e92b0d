package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

/** Counters are discovered from both sysfs directories, whatever files they hold, and kept apart by directory. */
class SysfsPortCountersTest {

    @Test
    void readsEveryNumericFileOfBothDirectories(@TempDir Path device) throws IOException {
        Path port = Files.createDirectories(device.resolve("ports/1"));
        Files.createDirectories(port.resolve("hw_counters"));
        Files.createDirectories(port.resolve("counters"));
        Files.writeString(port.resolve("hw_counters/sent_pkts"), "42\n");
        Files.writeString(port.resolve("hw_counters/retry_exceeded_err"), "0\n");
        Files.writeString(port.resolve("hw_counters/lifespan"), "N/A\n");
        Files.writeString(port.resolve("counters/port_xmit_data"), "18446744073709551615\n");
        PortCounters counters = SysfsPortCounters.read(device.toString(), "rxe0", 1);
        assertThat(counters.portNumber()).isEqualTo(1);
        assertThat(counters.hardwareCounters()).containsOnly(entry("sent_pkts", 42L), entry("retry_exceeded_err", 0L));
        assertThat(counters.counters()).containsOnly(entry("port_xmit_data", -1L));
    }

    @Test
    void aDeviceWithoutPmaCountersHasNoCountersDirectory(@TempDir Path device) throws IOException {
        Path port = Files.createDirectories(device.resolve("ports/1/hw_counters"));
        Files.writeString(port.resolve("rcvd_pkts"), "7\n");
        PortCounters counters = SysfsPortCounters.read(device.toString(), "rxe0", 1);
        assertThat(counters.counters()).isEmpty();
        assertThat(counters.hardwareCounters()).containsOnly(entry("rcvd_pkts", 7L));
    }

    @Test
    void aPortWithoutADirectoryIsInvalid(@TempDir Path device) {
        assertThatThrownBy(() -> SysfsPortCounters.read(device.toString(), "rxe0", 2))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }
}
