package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.GidType;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.VerbsException;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;


/**
 * Where a connection to this very host goes. rdma_cm has no RDMA device behind the loopback
 * interface ({@code rdma_resolve_route} to 127.0.0.1 fails with ENODEV on RoCE), so a loopback
 * destination is replaced by this host's own RDMA address on the context's device: the IPv4
 * address of a port's RoCE v2 GID (the GID the connection manager picks for the address), on
 * InfiniBand the address of the port's IPoIB interface, on iWARP (whose one GID is made from a MAC
 * address, not an IP) the address of the netdev the port runs over. The simulated fabric routes the loopback
 * address itself, so this belongs to the native provider only, and its users never see the
 * difference.
 */
final class LoopbackDestination {

    private static final System.Logger LOG = System.getLogger(LoopbackDestination.class.getName());
    private static final Path SYSFS_DEVICES = Path.of("/sys/class/infiniband");

    private final NativeContext context;
    private final AtomicBoolean told = new AtomicBoolean();

    LoopbackDestination(NativeContext context) {
        this.context = context;
    }

    /**
     * {@code remote}, or for a loopback address this host's RDMA address on the same port number
     * (logged once); ENODEV from {@code rdma_resolve_route} when no port of the device has an
     * address to use.
     */
    InetSocketAddress routable(InetSocketAddress remote) {
        InetAddress address = remote.getAddress();
        if (address == null || !address.isLoopbackAddress()) {
            return remote;
        }
        int ports = context.queryDevice().physicalPortCount();
        boolean iwarp = context.transportType() == TransportType.IWARP;
        for (int port = 1; port <= ports; port++) {
            boolean roce = context.queryPort(port).linkLayer() == LinkLayer.ETHERNET;
            Optional<InetAddress> own = iwarp ? netdevAddress(port) : roce ? roceAddress(port) : ipoibAddress(port);
            if (own.isPresent()) {
                if (told.compareAndSet(false, true)) {
                    LOG.log(System.Logger.Level.INFO, address.getHostAddress() + " is not routable over "
                            + (iwarp ? "iWARP" : roce ? "RoCE" : "InfiniBand") + "; connecting to this host's RDMA address "
                            + own.get().getHostAddress() + " of " + context.deviceName() + " port " + port);
                }
                return new InetSocketAddress(own.get(), remote.getPort());
            }
        }
        throw new VerbsException("rdma_resolve_route", Errno.ENODEV, remote + " is a loopback address, which rdma_cm"
                + " cannot route to a device, and no port of " + context.deviceName() + " has an IPv4 address to"
                + " use instead", "Connect to an IPv4 address of this host's RDMA port, or give the port's netdev"
                + " (RoCE, iWARP) or IPoIB interface an IPv4 address (ip addr add ... dev <netdev>).");
    }

    /** The IPv4 address of the port's first RoCE v2 GID that has one, as the preflight chooses it. */
    private Optional<InetAddress> roceAddress(int port) {
        return context.gidTable(port).stream()
                .filter(gid -> gid.type() == GidType.ROCE_V2 && gid.isIpv4())
                .findFirst().map(LoopbackDestination::ipv4);
    }

    private static InetAddress ipv4(GidEntry entry) {
        try {
            return InetAddress.getByName(entry.gid().ipv4Address().orElseThrow()); // a literal: nothing is looked up
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a dotted IPv4 address is an address", e);
        }
    }

    /** The IPv4 address of the netdev the port's GID belongs to ({@code gid_attrs/ndevs/0} in sysfs). */
    private Optional<InetAddress> netdevAddress(int port) {
        Path netdev = SYSFS_DEVICES.resolve(context.deviceName()).resolve("ports/" + port + "/gid_attrs/ndevs/0");
        try {
            return addresses(Files.readString(netdev).trim()).findFirst();
        } catch (IOException e) {
            return Optional.empty(); // no netdev bound to the port
        }
    }

    /**
     * The IPv4 address of the port's IPoIB interface: a netdev of the device's PCI function
     * whose {@code dev_port} is the port's (counted from 0).
     */
    private Optional<InetAddress> ipoibAddress(int port) {
        Path netdevs = SYSFS_DEVICES.resolve(context.deviceName()).resolve("device/net");
        try (Stream<Path> names = Files.list(netdevs)) {
            return names.filter(netdev -> devPort(netdev) == port - 1)
                    .flatMap(netdev -> addresses(netdev.getFileName().toString()))
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty(); // no netdevs listed: the device has no IPoIB interface
        }
    }

    private static int devPort(Path netdev) {
        try {
            return Integer.parseInt(Files.readString(netdev.resolve("dev_port")).trim());
        } catch (IOException | NumberFormatException e) {
            return 0; // older kernels have no dev_port: a single-port device's netdev is port 1's
        }
    }

    private static Stream<InetAddress> addresses(String netdev) {
        try {
            NetworkInterface network = NetworkInterface.getByName(netdev);
            return network == null ? Stream.empty()
                    : network.inetAddresses().filter(Inet4Address.class::isInstance);
        } catch (SocketException e) {
            return Stream.empty();
        }
    }
}
