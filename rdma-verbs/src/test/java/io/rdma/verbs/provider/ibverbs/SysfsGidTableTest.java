package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.GidType;
import io.rdma.verbs.api.Guid;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.TransportType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The GID table as rxe's, an HCA's and siw's sysfs show it: used entries with types and netdevs, empty ones left out. */
class SysfsGidTableTest {

    @Test
    void readsUsedEntriesWithTypeAndNetdev(@TempDir Path device) throws IOException {
        Path port = portOne(device);
        entry(port, 0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "rxenet0");
        entry(port, 1, "0000:0000:0000:0000:0000:ffff:0a4d:0001", "RoCE v2", "rxenet0");
        entry(port, 2, "0000:0000:0000:0000:0000:ffff:0a4d:0002", "IB/RoCE v1", "rxenet0");
        // An unused entry: the GID reads as zeros and its type file cannot be read (EINVAL), here: absent.
        Files.writeString(port.resolve("gids/3"), "0000:0000:0000:0000:0000:0000:0000:0000\n");
        assertThat(SysfsGidTable.read(device.toString(), "rxe0", 1, 4, LinkLayer.ETHERNET,
                TransportType.INFINIBAND)).containsExactly(
                new GidEntry(0, Gid.parse("fe80::5054:ff:fe12:3456"), GidType.ROCE_V2, "rxenet0"),
                new GidEntry(1, Gid.parse("10.77.0.1"), GidType.ROCE_V2, "rxenet0"),
                new GidEntry(2, Gid.parse("10.77.0.2"), GidType.ROCE_V1, "rxenet0"));
    }

    @Test
    void infinibandEntriesAreIbWithoutNetdev(@TempDir Path device) throws IOException {
        Path port = portOne(device);
        Files.writeString(port.resolve("gids/0"), "fe80:0000:0000:0000:0002:c903:0001:0001\n");
        Files.writeString(port.resolve("gid_attrs/types/0"), "IB/RoCE v1\n");
        assertThat(SysfsGidTable.read(device.toString(), "mlx5_0", 1, 1, LinkLayer.INFINIBAND,
                TransportType.INFINIBAND))
                .containsExactly(new GidEntry(0, Gid.linkLocal(new Guid(0x0002_c903_0001_0001L)), GidType.IB, null));
    }

    /** siw0's, as a Soft-iWARP guest showed it: one GID from the MAC address, type IB/RoCE v1, its netdev. */
    @Test
    void anIwarpEntryIsIbNotRoce(@TempDir Path device) throws IOException {
        Path port = portOne(device);
        entry(port, 0, "926b:7a3d:23fe:0000:0000:0000:0000:0000", "IB/RoCE v1", "siwnet0");
        assertThat(SysfsGidTable.read(device.toString(), "siw0", 1, 1, LinkLayer.ETHERNET, TransportType.IWARP))
                .containsExactly(new GidEntry(0, Gid.parse("926b:7a3d:23fe::"), GidType.IB, "siwnet0"));
    }

    private static Path portOne(Path device) throws IOException {
        Path port = Files.createDirectories(device.resolve("ports/1"));
        Files.createDirectories(port.resolve("gids"));
        Files.createDirectories(port.resolve("gid_attrs/types"));
        Files.createDirectories(port.resolve("gid_attrs/ndevs"));
        return port;
    }

    private static void entry(Path port, int index, String gid, String type, String netdev) throws IOException {
        Files.writeString(port.resolve("gids/" + index), gid + "\n");
        Files.writeString(port.resolve("gid_attrs/types/" + index), type + "\n");
        Files.writeString(port.resolve("gid_attrs/ndevs/" + index), netdev + "\n");
    }
}
