package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.GidType;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.VerbsException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A port's GID table from sysfs, as {@code show_gids} reads it: {@code ports/<p>/gids/<i>},
 * {@code gid_attrs/types/<i>} ({@code RoCE v2}, or {@code IB/RoCE v1}, which the link layer
 * tells apart: RoCE v1 on an Ethernet port of the InfiniBand transport; an iWARP port's one GID,
 * made from its MAC address, is the kernel's IB type, as it frames no RoCE) and
 * {@code gid_attrs/ndevs/<i>}. The generated bindings have no
 * {@code ibv_query_gid_ex}, and sysfs is what that verb reads too on kernels without the
 * ioctl. Reading the type of an unused entry fails (EINVAL): those entries are skipped.
 */
final class SysfsGidTable {

    private SysfsGidTable() {
    }

    static List<GidEntry> read(String sysfsPath, String deviceName, int port, int tableLength, LinkLayer linkLayer,
                               TransportType transport) {
        Path portDir = Path.of(sysfsPath, "ports", Integer.toString(port));
        if (!Files.isDirectory(portDir)) {
            throw new VerbsException("GID table", Errno.EINVAL, "no sysfs directory " + portDir + " for port "
                    + port + " of " + deviceName, "ports are numbered from 1");
        }
        List<GidEntry> entries = new ArrayList<>();
        for (int index = 0; index < tableLength; index++) {
            String entry = Integer.toString(index);
            String gid = readOrNull(portDir.resolve("gids").resolve(entry));
            String type = readOrNull(portDir.resolve("gid_attrs/types").resolve(entry));
            if (gid == null || type == null || type.isEmpty()) {
                continue;
            }
            Gid parsed = Gid.parse(gid);
            if (!parsed.isZero()) {
                String netdev = readOrNull(portDir.resolve("gid_attrs/ndevs").resolve(entry));
                entries.add(new GidEntry(index, parsed, type(type, linkLayer, transport),
                        netdev == null || netdev.isEmpty() ? null : netdev));
            }
        }
        return entries;
    }

    private static GidType type(String sysfsType, LinkLayer linkLayer, TransportType transport) {
        if (sysfsType.equals("RoCE v2")) {
            return GidType.ROCE_V2;
        }
        return linkLayer == LinkLayer.ETHERNET && transport == TransportType.INFINIBAND ? GidType.ROCE_V1
                : GidType.IB;
    }

    /** The file's trimmed content; null where it is missing or unreadable (unused entries read EINVAL). */
    private static @Nullable String readOrNull(Path file) {
        try {
            return Files.readString(file).trim();
        } catch (IOException e) {
            return null;
        }
    }
}
