package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.DeviceNodeAccess;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.GidType;
import io.rdma.verbs.api.HostAccess;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.LockedMemoryAllowance;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ProviderSettings;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.Unsigned64;

import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A device the simulated fabric creates: ports and their link, and the limits
 * {@code ibv_query_device} will report and the fabric will enforce. Defaults describe a
 * capable single-port InfiniBand HCA. Passed among the settings of
 * {@link io.rdma.verbs.api.Verbs#open(io.rdma.verbs.api.ProviderKind, List)}; the native provider
 * ignores it, and a simulated fabric opened without any creates one default device, {@code sim0}.
 *
 * <p>A simulated device stands for an HCA in a host, the one its session is ({@link SharedFabric}),
 * so the spec also says what that host grants it ({@link HostAccess}: device nodes, locked
 * memory), whether a subnet manager assigned its InfiniBand ports LIDs, and which
 * {@link GidType} its RoCE GIDs have. The defaults grant everything, as a well set-up host does.
 *
 * <p>The {@link TransportType transport} is InfiniBand (on InfiniBand ports, or RoCE on Ethernet
 * ones) or iWARP, as Soft-iWARP ({@code siw}) is: an iWARP device has Ethernet ports and no
 * atomics, and refuses what siw refuses of what iWARP lacks (UC, UD and raw packet QPs:
 * EOPNOTSUPP at {@code ibv_create_qp}; immediate data: EINVAL at {@code ibv_post_send}). It
 * connects, retries and orders its first messages as the InfiniBand transport does: iWARP's
 * connection through rdma_cm only, its lack of RNR retries and MPA's first-message rule are not
 * simulated.
 */
public record DeviceSpec(String name, TransportType transport, int ports, LinkLayer linkLayer,
                         PortState initialPortState, Mtu mtu, int activeSpeed, int activeWidth, List<Gid> extraGids,
                         int maxQp, int maxQpWr, int maxSge, int maxCq, int maxCqe, int maxMr, long maxMrSize,
                         int maxPd, int maxSrq, int maxSrqWr, int maxAh, int maxInlineData, int maxQpRdAtom,
                         boolean atomics, boolean completionTimestamps, int maxCompletionCounters,
                         long completionCounterMaxValue, Set<CompletionCounterOp> completionCounterOps,
                         boolean flowCounters, GidType roceGidType, boolean subnetManager,
                         LockedMemoryAllowance lockedMemory, DeviceNodeAccess verbsNodeAccess,
                         DeviceNodeAccess connectionManagerNodeAccess)
        implements ProviderSettings {

    public DeviceSpec {
        Objects.requireNonNull(name, "name");
        if (Objects.requireNonNull(transport, "transport") != TransportType.INFINIBAND
                && transport != TransportType.IWARP) {
            throw new IllegalArgumentException("device " + name + ": the simulated transports are INFINIBAND and"
                    + " IWARP, not " + transport);
        }
        if (transport == TransportType.IWARP && linkLayer != LinkLayer.ETHERNET) {
            // iWARP runs over TCP/IP on Ethernet: siw reports link_layer Ethernet
            throw new IllegalArgumentException("device " + name + ": an IWARP device's link layer is ETHERNET, not "
                    + linkLayer);
        }
        if (transport == TransportType.IWARP && atomics) {
            throw new IllegalArgumentException("device " + name + ": an IWARP device has no atomics (siw reports"
                    + " atomic_cap ATOMIC_NONE)");
        }
        if (ports < 1 || ports > 255) {
            throw new IllegalArgumentException("device " + name + ": ports must be 1..255, not " + ports);
        }
        extraGids = List.copyOf(extraGids);
        if (Objects.requireNonNull(roceGidType, "roceGidType") == GidType.IB) {
            throw new IllegalArgumentException("device " + name + ": RoCE GIDs are RoCE v1 or v2, not IB");
        }
        Objects.requireNonNull(lockedMemory, "lockedMemory");
        Objects.requireNonNull(verbsNodeAccess, "verbsNodeAccess");
        Objects.requireNonNull(connectionManagerNodeAccess, "connectionManagerNodeAccess");
        completionCounterOps = completionCounterOps.isEmpty()
                ? Set.of() : Set.copyOf(EnumSet.copyOf(completionCounterOps));
    }

    public static Builder named(String name) {
        return new Builder(name);
    }

    /** Builder with the defaults of a capable single-port IB HCA. */
    public static final class Builder {
        private final String name;
        private TransportType transport = TransportType.INFINIBAND;
        private int ports = 1;
        private LinkLayer linkLayer = LinkLayer.INFINIBAND;
        private PortState initialPortState = PortState.ACTIVE;
        private Mtu mtu = Mtu.MTU_4096;
        private int activeSpeed = 32;
        private int activeWidth = 2;
        private List<Gid> extraGids = List.of();
        private int maxQp = 4096;
        private int maxQpWr = 16384;
        private int maxSge = 16;
        private int maxCq = 4096;
        private int maxCqe = 1 << 20;
        private int maxMr = 1 << 16;
        /** 2^64 - 1 as rxe and mlx5 report it, so a signed reading of the u64 fails here as on hardware. */
        private long maxMrSize = Unsigned64.MAX;
        private int maxPd = 1024;
        private int maxSrq = 1024;
        private int maxSrqWr = 16384;
        private int maxAh = 4096;
        private int maxInlineData = 256;
        private int maxQpRdAtom = 16;
        private boolean atomics = true;
        private boolean completionTimestamps = true;
        private int maxCompletionCounters = 64;
        private long completionCounterMaxValue = Unsigned64.MAX;
        private Set<CompletionCounterOp> completionCounterOps = EnumSet.allOf(CompletionCounterOp.class);
        private boolean flowCounters = true;
        private GidType roceGidType = GidType.ROCE_V2;
        private boolean subnetManager = true;
        private LockedMemoryAllowance lockedMemory = LockedMemoryAllowance.unlimited();
        private DeviceNodeAccess verbsNodeAccess = DeviceNodeAccess.READ_WRITE;
        private DeviceNodeAccess connectionManagerNodeAccess = DeviceNodeAccess.READ_WRITE;

        private Builder(String name) {
            this.name = name;
        }

        /** INFINIBAND (the default) or IWARP, which takes {@code linkLayer(ETHERNET)} and {@code atomics(false)}. */
        public Builder transport(TransportType value) { transport = value; return this; }
        public Builder ports(int value) { ports = value; return this; }
        public Builder linkLayer(LinkLayer value) { linkLayer = value; return this; }
        public Builder initialPortState(PortState value) { initialPortState = value; return this; }
        public Builder mtu(Mtu value) { mtu = value; return this; }
        public Builder speed(int speed, int width) { activeSpeed = speed; activeWidth = width; return this; }
        public Builder extraGids(List<Gid> value) { extraGids = value; return this; }
        public Builder maxQp(int value) { maxQp = value; return this; }
        public Builder maxQpWr(int value) { maxQpWr = value; return this; }
        public Builder maxSge(int value) { maxSge = value; return this; }
        public Builder maxCq(int value) { maxCq = value; return this; }
        public Builder maxCqe(int value) { maxCqe = value; return this; }
        public Builder maxMr(int value) { maxMr = value; return this; }
        public Builder maxMrSize(long value) { maxMrSize = value; return this; }
        public Builder maxPd(int value) { maxPd = value; return this; }
        public Builder maxSrq(int value) { maxSrq = value; return this; }
        public Builder maxSrqWr(int value) { maxSrqWr = value; return this; }
        public Builder maxAh(int value) { maxAh = value; return this; }
        public Builder maxInlineData(int value) { maxInlineData = value; return this; }
        public Builder maxQpRdAtom(int value) { maxQpRdAtom = value; return this; }
        public Builder atomics(boolean value) { atomics = value; return this; }
        public Builder completionTimestamps(boolean value) { completionTimestamps = value; return this; }
        public Builder maxCompletionCounters(int value) { maxCompletionCounters = value; return this; }
        /** {@code comp_count_max_value}; -1 (the default) is the full unsigned 64-bit range. */
        public Builder completionCounterMaxValue(long value) { completionCounterMaxValue = value; return this; }
        public Builder completionCounterOps(Set<CompletionCounterOp> value) { completionCounterOps = value; return this; }
        public Builder flowCounters(boolean value) { flowCounters = value; return this; }
        /** The type of every GID of an Ethernet port (rxe: RoCE v2); InfiniBand ports' GIDs are IB. */
        public Builder roceGidType(GidType value) { roceGidType = value; return this; }
        /** Whether a subnet manager runs: without one, InfiniBand ports keep LID 0. */
        public Builder subnetManager(boolean value) { subnetManager = value; return this; }
        public Builder lockedMemory(LockedMemoryAllowance value) { lockedMemory = value; return this; }
        public Builder verbsNodeAccess(DeviceNodeAccess value) { verbsNodeAccess = value; return this; }
        public Builder connectionManagerNodeAccess(DeviceNodeAccess value) {
            connectionManagerNodeAccess = value;
            return this;
        }

        public DeviceSpec build() {
            return new DeviceSpec(name, transport, ports, linkLayer, initialPortState, mtu, activeSpeed, activeWidth,
                    extraGids, maxQp, maxQpWr, maxSge, maxCq, maxCqe, maxMr, maxMrSize, maxPd, maxSrq, maxSrqWr, maxAh,
                    maxInlineData, maxQpRdAtom, atomics, completionTimestamps, maxCompletionCounters,
                    completionCounterMaxValue, completionCounterOps, flowCounters, roceGidType, subnetManager,
                    lockedMemory, verbsNodeAccess, connectionManagerNodeAccess);
        }
    }
}
