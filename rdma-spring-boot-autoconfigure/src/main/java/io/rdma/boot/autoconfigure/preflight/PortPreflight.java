package io.rdma.boot.autoconfigure.preflight;

import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.GidType;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.TransportType;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Checks the ports a configuration uses once the device is open, and chooses the GID index
 * where none is configured.
 *
 * <p>Fatal: an InfiniBand port that is ACTIVE with LID 0 (no subnet manager gave it an address,
 * so nothing can reach it), and a configured GID index that is empty or, on RoCE, not RoCE v2
 * (an iWARP port's one GID needs neither).
 * Reported, not fatal: a port that is not ACTIVE, because links come up after the service
 * (a cable, the subnet manager, the netdev); it is logged and the health indicator is DOWN
 * until the port is ACTIVE. Logged at INFO: the GID index chosen for a port.
 */
public final class PortPreflight {

    private static final Log logger = LogFactory.getLog(PortPreflight.class);

    private final DeviceContext context;
    private final String deviceProperty;

    private PortPreflight(DeviceContext context, String deviceProperty) {
        this.context = context;
        this.deviceProperty = deviceProperty;
    }

    /** Checks the ports of {@code uses}; returns the GID index chosen per port where a use leaves it unset. */
    public static Map<Integer, Integer> check(DeviceContext context, String deviceProperty, List<GidUse> uses) {
        PortPreflight preflight = new PortPreflight(context, deviceProperty);
        // A port the device lacks is left to DeviceLimits, which names the property that asks for it.
        int ports = context.queryDevice().physicalPortCount();
        List<GidUse> existing = uses.stream().filter(use -> use.port() <= ports).toList();
        Map<Integer, Integer> chosen = new TreeMap<>();
        existing.stream().mapToInt(GidUse::port).distinct().sorted().forEach(preflight::portState);
        for (GidUse use : existing) {
            Integer gidIndex = use.gidIndex();
            if (gidIndex != null) {
                preflight.configuredGid(use, gidIndex);
            } else {
                chosen.computeIfAbsent(use.port(), port -> preflight.chooseGid(use));
            }
        }
        return chosen;
    }

    private void portState(int port) {
        PortAttributes attributes = context.queryPort(port);
        if (!attributes.isActive()) {
            logger.warn("RDMA port " + port + " of device '" + context.deviceName() + "' is " + attributes.state()
                    + ", not ACTIVE: queue pairs cannot connect through it and the rdma health indicator reports"
                    + " DOWN until it is. Check the link (ibstat, ip link) and, on InfiniBand, the subnet"
                    + " manager (sminfo).");
        } else if (attributes.linkLayer() == LinkLayer.INFINIBAND && attributes.lid() == 0) {
            throw new RdmaPreflightException("LID", deviceProperty + ".port", "InfiniBand port " + port
                    + " of device '" + context.deviceName() + "' is ACTIVE with LID 0: no subnet manager has given"
                    + " it an address, so no peer can reach it", "ibv_modify_qp (to RTR)", Errno.EINVAL,
                    "Run a subnet manager on the fabric (opensm, or the switch's), check it with sminfo, and wait"
                            + " for ibstat to show a base lid other than 0.");
        }
    }

    private void configuredGid(GidUse use, int gidIndex) {
        List<GidEntry> table = context.queryGidTable(use.port());
        Optional<GidEntry> entry = table.stream().filter(gid -> gid.index() == gidIndex).findFirst();
        if (entry.isEmpty()) {
            throw gidFailure(use, "GID index " + gidIndex + " of port " + use.port() + " is empty", table);
        }
        if (isRoce(use.port()) && entry.get().type() != GidType.ROCE_V2) {
            throw gidFailure(use, "GID index " + gidIndex + " of port " + use.port() + " is "
                    + entry.get().type().label() + ", not RoCE v2 (which rdma_cm and routed RoCE use)", table);
        }
    }

    private int chooseGid(GidUse use) {
        if (!isRoce(use.port())) {
            // InfiniBand: index 0 is the port GID the subnet manager's prefix makes; iWARP: the one
            // GID, from the MAC address (rdma_cm addresses an iWARP peer by its IP address)
            return 0;
        }
        List<GidEntry> table = context.queryGidTable(use.port());
        List<GidEntry> candidates = table.stream()
                .filter(gid -> gid.type() == GidType.ROCE_V2 && gid.isIpv4()).toList();
        if (candidates.isEmpty()) {
            throw gidFailure(use, "port " + use.port() + " has no RoCE v2 GID of an IPv4 address to choose", table);
        }
        GidEntry gid = candidates.getFirst();
        logger.info("RDMA device '" + context.deviceName() + "' port " + use.port() + " uses GID index "
                + gid.index() + " (" + gid + "), the RoCE v2 GID of its IPv4 address"
                + (candidates.size() > 1 ? "; also RoCE v2 IPv4: " + candidates.subList(1, candidates.size()) : "")
                + "; set " + use.property() + " to choose another");
        return gid.index();
    }

    /** RoCE: the InfiniBand transport on an Ethernet port. iWARP (siw) is Ethernet too, with no RoCE GIDs. */
    private boolean isRoce(int port) {
        return context.device().transportType() == TransportType.INFINIBAND
                && context.queryPort(port).linkLayer() == LinkLayer.ETHERNET;
    }

    private RdmaPreflightException gidFailure(GidUse use, String found, List<GidEntry> table) {
        return new RdmaPreflightException("GID", use.property(), found + "; the GID table of device '"
                + context.deviceName() + "' port " + use.port() + " (index gid type netdev): " + table,
                "ibv_modify_qp (to RTR)", Errno.EINVAL, "Set " + use.property() + " to a RoCE v2 entry of the"
                + " table (show_gids lists it), or leave it unset to use the RoCE v2 GID of the port's IPv4"
                + " address; a netdev without an IPv4 address has none (ip addr add ... dev <netdev>).");
    }
}
