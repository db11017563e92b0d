package io.rdma.boot.autoconfigure;

import io.rdma.spring.resource.CompletionIdle;
import io.rdma.spring.resource.CompletionMode;
import io.rdma.spring.resource.IdleBackoff;
import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.DeviceNodeAccess;
import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.GidType;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.TransportType;

import io.rdma.spring.template.RdmaTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The resources a service declares under {@code rdma}, named, in the nesting of the
 * verbs hierarchy (device, then protection domains, then what lives in a PD), each becoming a
 * bean named after its key. Names are unique across the whole {@code rdma} tree, so
 * {@code @Qualifier("rpc") QueuePair} is unambiguous.
 *
 * <p>Enumerated values (provider, modes, transports, access flags, op kinds, ...) are enums, so
 * IDEs offer them; a value that names no constant fails the start with the key, the nearest valid
 * name and all of them as written in YAML. Every value is checked before anything is created.
 */
@ConfigurationProperties(RdmaProperties.PREFIX)
public class RdmaProperties {

    public static final String PREFIX = "rdma";

    /**
     * Whether RDMA resources are created at all; false leaves the application without any
     * RDMA beans.
     */
    private boolean enabled = true;

    /**
     * Which verbs provider serves the application: 'auto' uses libibverbs when it loads and
     * shows a device, else the simulated in-JVM fabric (a fallback is logged at WARN with its
     * reason, and the provider and why it serves are shown by health and /actuator/rdma); 'native'
     * uses libibverbs, and every configured device must exist, or the start fails naming what is
     * missing; 'simulated' always uses the in-JVM fabric. Set 'native' in production.
     */
    private ProviderKind provider = ProviderKind.AUTO;

    /** The embedded software fabric used when the provider is 'simulated', or 'auto' without hardware. */
    private final Simulated simulated = new Simulated();

    /**
     * Devices by key, each with the resources created on it: the key is the name the provider
     * reports (ibv_devices) unless the device's 'name' gives that.
     */
    private Map<String, Device> devices = new LinkedHashMap<>();

    /** Connections through the connection manager: listeners and outbound connections. */
    private final Connections connections = new Connections();

    /** How the declared resources stop when the application context closes. */
    private final Shutdown shutdown = new Shutdown();

    /** The RdmaTemplate's request/reply. */
    private final Template template = new Template();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public ProviderKind getProvider() {
        return provider;
    }

    public void setProvider(ProviderKind provider) {
        this.provider = provider;
    }

    public Simulated getSimulated() {
        return simulated;
    }

    public Map<String, Device> getDevices() {
        return devices;
    }

    public void setDevices(Map<String, Device> devices) {
        this.devices = devices;
    }

    public Connections getConnections() {
        return connections;
    }

    public Shutdown getShutdown() {
        return shutdown;
    }

    public Template getTemplate() {
        return template;
    }

    /** The simulated fabric: the devices it creates in addition to every name under 'rdma.devices'. */
    public static class Simulated {

        /**
         * Simulated devices by name (as ibv_devices would list them: a device under 'rdma.devices'
         * is described by its 'name', else its key), with their ports and limits. A device
         * configured under 'rdma.devices' but not here is simulated with the default settings (a
         * capable InfiniBand HCA) and as many ports as its resources name, so the same
         * configuration runs with and without hardware.
         */
        private Map<String, SimulatedDevice> devices = new LinkedHashMap<>();

        /**
         * Name of a fabric shared inside the JVM: applications that name the same one (several
         * instances of a service in one test) reach one another over it, each a host with its own
         * devices and addresses (10.<device>.<port>.<host>). Unset, the application's fabric is its
         * own.
         */
        private @Nullable String fabric;

        public Map<String, SimulatedDevice> getDevices() {
            return devices;
        }

        public void setDevices(Map<String, SimulatedDevice> devices) {
            this.devices = devices;
        }

        public @Nullable String getFabric() {
            return fabric;
        }

        public void setFabric(@Nullable String fabric) {
            this.fabric = fabric;
        }
    }

    /**
     * A device of the simulated fabric. Limits left unset take the defaults of a capable
     * single-port InfiniBand HCA; setting one lower lets a test provoke the error a smaller
     * device would give. The keys from subnet-manager on describe the fabric and host the device
     * stands for, so that each preflight check can be made to fail on the simulated fabric.
     */
    public static class SimulatedDevice {

        /** Number of physical ports, 1 to 255. */
        private int ports = 1;

        /**
         * Transport of the device: 'infiniband' (on 'infiniband' ports, or RoCE on 'ethernet' ones)
         * or 'iwarp', as Soft-iWARP (siw) is: link-layer 'ethernet', no atomics, RC queue pairs only
         * (others fail with EOPNOTSUPP), immediate data refused at the post (EINVAL).
         */
        private TransportType transport = TransportType.INFINIBAND;

        /**
         * Link layer of every port: 'infiniband' (addressed by LID) or 'ethernet' (RoCE, addressed
         * by GID; needed for flows).
         */
        private LinkLayer linkLayer = LinkLayer.INFINIBAND;

        /** State the ports start in; anything but 'active' makes the RDMA health indicator report DOWN. */
        private PortState initialPortState = PortState.ACTIVE;

        /** Active MTU of the ports, mtu-256 to mtu-4096. */
        private Mtu mtu = Mtu.MTU_4096;

        /** max_qp: queue pairs the device can hold, reported by the device and enforced; unset: 4096. */
        private @Nullable Integer maxQp;

        /** max_qp_wr: work requests per send or receive queue, reported by the device and enforced; unset: 16384. */
        private @Nullable Integer maxQpWr;

        /** max_sge: scatter/gather entries per work request, reported by the device and enforced; unset: 16. */
        private @Nullable Integer maxSge;

        /** max_cq: completion queues the device can hold, reported by the device and enforced; unset: 4096. */
        private @Nullable Integer maxCq;

        /** max_cqe: entries per completion queue, reported by the device and enforced; unset: 1048576. */
        private @Nullable Integer maxCqe;

        /** max_pd: protection domains the device can hold, reported by the device and enforced; unset: 1024. */
        private @Nullable Integer maxPd;

        /** max_srq: shared receive queues the device can hold, reported by the device and enforced; unset: 1024. */
        private @Nullable Integer maxSrq;

        /** max_srq_wr: work requests per shared receive queue, reported by the device and enforced; unset: 16384. */
        private @Nullable Integer maxSrqWr;

        /**
         * max_mr_size: the largest memory registration (a data size), reported and enforced; unset:
         * 2^64-1 bytes, as rxe and mlx5 report, so no pool is too large.
         */
        private @Nullable DataSize maxMrSize;

        /** Largest inline send the device accepts, in bytes; unset: 256. */
        private @Nullable Integer maxInlineData;

        /**
         * Completion counters the device can hold (max_comp_cntr); unset: 64; 0 simulates a device
         * without completion counters.
         */
        private @Nullable Integer maxCompletionCounters;

        /**
         * Op kinds the device's completion counters can count (send, recv, rdma-read,
         * remote-rdma-read, rdma-write, remote-rdma-write); unset means all.
         */
        private @Nullable List<CompletionCounterOp> completionCounterOps;

        /** Whether the device supports flow counters (ibv_create_counters); unset: true. */
        private @Nullable Boolean flowCounters;

        /**
         * Type of every GID of an 'ethernet' port: 'roce-v2' (as rxe) or 'roce-v1' ('ib' is refused;
         * 'infiniband' ports' GIDs are IB). The GID table is rxe-like: index 0 is fe80:: with the
         * port GUID, index 1 is ::ffff:10.d.p.1 for port p of the d-th simulated device (its IPv4
         * address), on netdev 'name-portp' (rxe0-port1).
         */
        private GidType roceGidType = GidType.ROCE_V2;

        /**
         * Whether a subnet manager assigned the 'infiniband' ports LIDs; without one they keep LID 0,
         * which fails the LID preflight check.
         */
        private boolean subnetManager = true;

        /**
         * RLIMIT_MEMLOCK of the device's host (ulimit -l), a data size; unset means unlimited. The
         * locked-memory preflight check fails when the memory pools pin more than this.
         */
        private @Nullable DataSize lockedMemoryLimit;

        /** Whether the process has CAP_IPC_LOCK on the device's host, which lifts the locked-memory limit. */
        private boolean ipcLockCapability;

        /** Access to the device's /dev/infiniband/uverbsN: read-write, read-only, write-only, denied or missing. */
        private DeviceNodeAccess verbsNodeAccess = DeviceNodeAccess.READ_WRITE;

        /** Access to /dev/infiniband/rdma_cm on the device's host, as for verbs-node-access. */
        private DeviceNodeAccess connectionManagerNodeAccess = DeviceNodeAccess.READ_WRITE;

        public int getPorts() {
            return ports;
        }

        public void setPorts(int ports) {
            this.ports = ports;
        }

        public TransportType getTransport() {
            return transport;
        }

        public void setTransport(TransportType transport) {
            this.transport = transport;
        }

        public LinkLayer getLinkLayer() {
            return linkLayer;
        }

        public void setLinkLayer(LinkLayer linkLayer) {
            this.linkLayer = linkLayer;
        }

        public PortState getInitialPortState() {
            return initialPortState;
        }

        public void setInitialPortState(PortState initialPortState) {
            this.initialPortState = initialPortState;
        }

        public Mtu getMtu() {
            return mtu;
        }

        public void setMtu(Mtu mtu) {
            this.mtu = mtu;
        }

        public @Nullable Integer getMaxQp() {
            return maxQp;
        }

        public void setMaxQp(@Nullable Integer maxQp) {
            this.maxQp = maxQp;
        }

        public @Nullable Integer getMaxQpWr() {
            return maxQpWr;
        }

        public void setMaxQpWr(@Nullable Integer maxQpWr) {
            this.maxQpWr = maxQpWr;
        }

        public @Nullable Integer getMaxSge() {
            return maxSge;
        }

        public void setMaxSge(@Nullable Integer maxSge) {
            this.maxSge = maxSge;
        }

        public @Nullable Integer getMaxCq() {
            return maxCq;
        }

        public void setMaxCq(@Nullable Integer maxCq) {
            this.maxCq = maxCq;
        }

        public @Nullable Integer getMaxCqe() {
            return maxCqe;
        }

        public void setMaxCqe(@Nullable Integer maxCqe) {
            this.maxCqe = maxCqe;
        }

        public @Nullable Integer getMaxPd() {
            return maxPd;
        }

        public void setMaxPd(@Nullable Integer maxPd) {
            this.maxPd = maxPd;
        }

        public @Nullable Integer getMaxSrq() {
            return maxSrq;
        }

        public void setMaxSrq(@Nullable Integer maxSrq) {
            this.maxSrq = maxSrq;
        }

        public @Nullable Integer getMaxSrqWr() {
            return maxSrqWr;
        }

        public void setMaxSrqWr(@Nullable Integer maxSrqWr) {
            this.maxSrqWr = maxSrqWr;
        }

        public @Nullable DataSize getMaxMrSize() {
            return maxMrSize;
        }

        public void setMaxMrSize(@Nullable DataSize maxMrSize) {
            this.maxMrSize = maxMrSize;
        }

        public @Nullable Integer getMaxInlineData() {
            return maxInlineData;
        }

        public void setMaxInlineData(@Nullable Integer maxInlineData) {
            this.maxInlineData = maxInlineData;
        }

        public @Nullable Integer getMaxCompletionCounters() {
            return maxCompletionCounters;
        }

        public void setMaxCompletionCounters(@Nullable Integer maxCompletionCounters) {
            this.maxCompletionCounters = maxCompletionCounters;
        }

        public @Nullable List<CompletionCounterOp> getCompletionCounterOps() {
            return completionCounterOps;
        }

        public void setCompletionCounterOps(@Nullable List<CompletionCounterOp> completionCounterOps) {
            this.completionCounterOps = completionCounterOps;
        }

        public @Nullable Boolean getFlowCounters() {
            return flowCounters;
        }

        public void setFlowCounters(@Nullable Boolean flowCounters) {
            this.flowCounters = flowCounters;
        }

        public GidType getRoceGidType() {
            return roceGidType;
        }

        public void setRoceGidType(GidType roceGidType) {
            this.roceGidType = roceGidType;
        }

        public boolean isSubnetManager() {
            return subnetManager;
        }

        public void setSubnetManager(boolean subnetManager) {
            this.subnetManager = subnetManager;
        }

        public @Nullable DataSize getLockedMemoryLimit() {
            return lockedMemoryLimit;
        }

        public void setLockedMemoryLimit(@Nullable DataSize lockedMemoryLimit) {
            this.lockedMemoryLimit = lockedMemoryLimit;
        }

        public boolean isIpcLockCapability() {
            return ipcLockCapability;
        }

        public void setIpcLockCapability(boolean ipcLockCapability) {
            this.ipcLockCapability = ipcLockCapability;
        }

        public DeviceNodeAccess getVerbsNodeAccess() {
            return verbsNodeAccess;
        }

        public void setVerbsNodeAccess(DeviceNodeAccess verbsNodeAccess) {
            this.verbsNodeAccess = verbsNodeAccess;
        }

        public DeviceNodeAccess getConnectionManagerNodeAccess() {
            return connectionManagerNodeAccess;
        }

        public void setConnectionManagerNodeAccess(DeviceNodeAccess connectionManagerNodeAccess) {
            this.connectionManagerNodeAccess = connectionManagerNodeAccess;
        }
    }

    /**
     * A device and everything created on it, by a key that names its bean and that its resources
     * and connections refer to: the name the provider reports (ibv_devices) unless {@code name}
     * gives that; its settings are the defaults of its resources.
     */
    public static class Device {

        /**
         * The device's name as ibv_devices lists it (rxe0, mlx5_0, siw0); unset: the key. Lets the
         * key (the bean's and every resource's parent name) stay the same on hosts whose devices
         * are named differently, e.g. name: ${RDMA_DEVICE:rxe0}.
         */
        private @Nullable String name;

        /** Port the device's queue pairs and flows use unless they name their own, numbered from 1. */
        private int port = 1;

        /**
         * GID table index the device's queue pairs use unless they name their own. Unset: on RoCE
         * the RoCE v2 GID of the port's IPv4 address (chosen and logged at startup; the start fails
         * when the port has none), on InfiniBand 0. A configured index must name a non-empty entry,
         * on RoCE a RoCE v2 one.
         */
        private @Nullable Integer gidIndex;

        /** Capacities and send timeout of every queue pair on this device that does not set its own. */
        private final QueuePairDefaults queuePairDefaults = new QueuePairDefaults();

        /** Completion queues by name; a queue pair that names no send-cq uses the device's only one. */
        private Map<String, CompletionQueue> completionQueues = new LinkedHashMap<>();

        /**
         * Completion counters by name ({} for one whose counts live in provider memory); queue
         * pairs attach to them under their 'completion-counters'.
         */
        private Map<String, CompletionCounter> completionCounters = new LinkedHashMap<>();

        /** Protection domains by name, each with its memory pools, shared receive queues and queue pairs. */
        private Map<String, ProtectionDomain> protectionDomains = new LinkedHashMap<>();

        /** Flow steering rules by name, each steering matching packets to a queue pair. */
        private Map<String, Flow> flows = new LinkedHashMap<>();

        public @Nullable String getName() {
            return name;
        }

        public void setName(@Nullable String name) {
            this.name = name;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public @Nullable Integer getGidIndex() {
            return gidIndex;
        }

        public void setGidIndex(@Nullable Integer gidIndex) {
            this.gidIndex = gidIndex;
        }

        public QueuePairDefaults getQueuePairDefaults() {
            return queuePairDefaults;
        }

        public Map<String, CompletionQueue> getCompletionQueues() {
            return completionQueues;
        }

        public void setCompletionQueues(Map<String, CompletionQueue> completionQueues) {
            this.completionQueues = completionQueues;
        }

        public Map<String, CompletionCounter> getCompletionCounters() {
            return completionCounters;
        }

        public void setCompletionCounters(Map<String, CompletionCounter> completionCounters) {
            this.completionCounters = completionCounters;
        }

        public Map<String, ProtectionDomain> getProtectionDomains() {
            return protectionDomains;
        }

        public void setProtectionDomains(Map<String, ProtectionDomain> protectionDomains) {
            this.protectionDomains = protectionDomains;
        }

        public Map<String, Flow> getFlows() {
            return flows;
        }

        public void setFlows(Map<String, Flow> flows) {
            this.flows = flows;
        }
    }

    /**
     * Queue pair capacities, send timeout and reliability settings a device gives the queue pairs
     * that do not set their own.
     */
    public static class QueuePairDefaults {

        /** Send queue depth: outstanding send work requests. */
        private int maxSendWr = 128;

        /** Receive queue depth: outstanding receive work requests (ignored for a queue pair with an srq). */
        private int maxRecvWr = 128;

        /** Scatter/gather entries per send work request. */
        private int maxSendSge = 1;

        /** Scatter/gather entries per receive work request. */
        private int maxRecvSge = 1;

        /** Largest inline send in bytes; 0 disables inline sends. */
        private int maxInlineData = 0;

        /**
         * How long an RdmaTemplate operation (and a listener's reply) waits for room in a full
         * send queue before it fails with SendQueueFullException; 0 fails at once, a negative value
         * fails the start. The wait holds neither a thread nor a buffer: waiting operations are
         * posted in order as completions free slots.
         */
        private Duration sendTimeout = Duration.ofSeconds(5);

        /** Reliability settings of the device's rc queue pairs and prototypes that do not set their own. */
        private final Reliability reliability = new Reliability();

        public int getMaxSendWr() {
            return maxSendWr;
        }

        public void setMaxSendWr(int maxSendWr) {
            this.maxSendWr = maxSendWr;
        }

        public int getMaxRecvWr() {
            return maxRecvWr;
        }

        public void setMaxRecvWr(int maxRecvWr) {
            this.maxRecvWr = maxRecvWr;
        }

        public int getMaxSendSge() {
            return maxSendSge;
        }

        public void setMaxSendSge(int maxSendSge) {
            this.maxSendSge = maxSendSge;
        }

        public int getMaxRecvSge() {
            return maxRecvSge;
        }

        public void setMaxRecvSge(int maxRecvSge) {
            this.maxRecvSge = maxRecvSge;
        }

        public int getMaxInlineData() {
            return maxInlineData;
        }

        public void setMaxInlineData(int maxInlineData) {
            this.maxInlineData = maxInlineData;
        }

        public Duration getSendTimeout() {
            return sendTimeout;
        }

        public void setSendTimeout(Duration sendTimeout) {
            this.sendTimeout = sendTimeout;
        }

        public Reliability getReliability() {
            return reliability;
        }
    }

    /**
     * How soon an rc queue pair notices a peer that stopped answering, and how it waits for a peer
     * without a receive posted: the ACK timeout, retry counts and RNR timer that the connection
     * manager otherwise chooses, set when a listener or an outbound connection connects the queue
     * pair. A peer that is gone (its process killed, its link down, a partition) is noticed when a
     * work request towards it fails with RETRY_EXC_ERR, (retry-count + 1) × 4.096 µs ×
     * 2^ack-timeout after it was posted: ack-timeout 14 and retry-count 7 ≈ 0.54 s, 18 and 7 ≈ 8.6 s,
     * 12 and 3 ≈ 67 ms; the connection then reconnects, and health shows it DOWN meanwhile. Too short
     * a time fails connections on a congested or lossy fabric. Each unset value comes from the
     * device's queue-pair-defaults, else from the connection manager (its default follows the path's
     * packet lifetime); the actuator's rdma endpoint and health show what each connection got.
     */
    public static class Reliability {

        /**
         * Local ACK timeout (ibv_qp_attr.timeout), as the IB encoding 0 to 31: each try waits
         * 4.096 µs × 2^ack-timeout for its acknowledgement before it is sent again. 8 ≈ 1 ms, 12 ≈
         * 17 ms, 14 ≈ 67 ms, 17 ≈ 0.54 s, 20 ≈ 4.3 s, 31 ≈ 2.4 h; 0 waits for ever, so a peer that
         * is gone is never noticed by the transport. A peer that is gone is noticed after
         * (retry-count + 1) tries: 14 with retry-count 7 ≈ 0.54 s, 18 with 7 ≈ 8.6 s. Unset: the
         * device's queue-pair-defaults, else what the connection manager chooses.
         */
        private @Nullable Integer ackTimeout;

        /**
         * Transport retries (retry_cnt), 0 to 7: how often a packet is sent again after an ACK
         * timeout before the work request fails with RETRY_EXC_ERR and the queue pair goes to the
         * error state. A peer that is gone is noticed after (retry-count + 1) ACK timeouts. Unset:
         * the device's queue-pair-defaults, else what the connection manager chooses (7).
         */
        private @Nullable Integer retryCount;

        /**
         * RNR retries (rnr_retry), 0 to 7, 7 = for ever: how often a send that found no receive
         * posted at the peer (RNR NAK) is sent again, each after the peer's rnr-timer, before it
         * fails with RNR_RETRY_EXC_ERR. 7 waits for ever for a peer that is slow to post receives.
         * Unset: the device's queue-pair-defaults, else what the connection manager chooses (7).
         */
        private @Nullable Integer rnrRetry;

        /**
         * The RNR NAK timer (min_rnr_timer), as the IB encoding 0 to 31: how long this queue pair
         * asks a sender to wait when a send finds no receive posted here. 1 = 0.01 ms, 4 = 0.04 ms,
         * 8 = 0.16 ms, 12 = 0.64 ms, 14 = 1.28 ms, 16 = 2.56 ms, 20 = 10.24 ms, 24 = 40.96 ms,
         * 28 = 163.84 ms, 31 = 491.52 ms, and 0 = 655.36 ms, the longest (the IB spec's table; the
         * verbs manual's table is wrong at 12, 14 and 20). Unset: the device's queue-pair-defaults,
         * else 12 (0.64 ms), in place of the kernel connection manager's 0, which stalls a sender
         * 655 ms per RNR NAK.
         */
        private @Nullable Integer rnrTimer;

        public @Nullable Integer getAckTimeout() {
            return ackTimeout;
        }

        public void setAckTimeout(@Nullable Integer ackTimeout) {
            this.ackTimeout = ackTimeout;
        }

        public @Nullable Integer getRetryCount() {
            return retryCount;
        }

        public void setRetryCount(@Nullable Integer retryCount) {
            this.retryCount = retryCount;
        }

        public @Nullable Integer getRnrRetry() {
            return rnrRetry;
        }

        public void setRnrRetry(@Nullable Integer rnrRetry) {
            this.rnrRetry = rnrRetry;
        }

        public @Nullable Integer getRnrTimer() {
            return rnrTimer;
        }

        public void setRnrTimer(@Nullable Integer rnrTimer) {
            this.rnrTimer = rnrTimer;
        }
    }

    /** A completion queue and how its completions are delivered. */
    public static class CompletionQueue {

        /**
         * Minimum number of entries. Must hold what its queue pairs can have outstanding (verbs
         * manual §5.2): the max-send-wr of each queue pair sending to it plus the max-recv-wr (with
         * an srq: the srq's max-wr) of each receiving to it, a prototype's counted once per peer its
         * listeners may connect at once (max-connections); a smaller queue fails the start with the
         * number needed, as a full queue would overrun and move its queue pairs to the error state.
         */
        private int entries = 256;

        /**
         * Delivery of completions: 'polling' busy-polls on platform thread rdma-cq-NAME (one of the
         * queue's threads at a time: the thread that takes a worker listener's message runs it,
         * having handed the polling to rdma-cq-NAME-N);
         * 'event' sleeps on the queue's own completion channel (bean NAME.channel), re-armed before
         * each poll (verbs manual §5.4); 'adaptive' polls while completions keep arriving and sleeps
         * on events after poll-window without one.
         */
        private CompletionMode mode = CompletionMode.ADAPTIVE;

        /** Under 'adaptive', how long polling continues after the last completion before sleeping on events. */
        private Duration pollWindow = Duration.ofMillis(1);

        /**
         * What the poller does between polls that found the queue empty, while it polls ('polling',
         * and 'adaptive' within poll-window): 'spin' polls again at once (the lowest latency, and a
         * whole core); 'backoff' spins idle-spins times, then yields idle-yields times, then parks for
         * idle-min-park, doubling up to idle-max-park, starting again at each completion, so that
         * other threads and processes on the core run while completions pause.
         */
        private CompletionIdle idle = CompletionIdle.SPIN;

        /** Under idle 'backoff', the empty polls followed by a spin-wait hint before the poller yields. */
        private int idleSpins = IdleBackoff.DEFAULT.spins();

        /** Under idle 'backoff', the empty polls followed by a yield of the core before the poller parks. */
        private int idleYields = IdleBackoff.DEFAULT.yields();

        /** Under idle 'backoff', the first park after the yields; each next one is twice as long. */
        private Duration idleMinPark = IdleBackoff.DEFAULT.minPark();

        /** Under idle 'backoff', the longest park: how late a poller may notice a completion after a pause. */
        private Duration idleMaxPark = IdleBackoff.DEFAULT.maxPark();

        /** Completions taken per poll. */
        private int batchSize = 16;

        /** Interrupt vector of the completion channel, 0 to num_comp_vectors - 1 (under 'event' and 'adaptive'). */
        private int completionVector = 0;

        /** Whether completions carry the device's timestamp; a device that cannot fails the start. */
        private boolean timestamps = false;

        public int getEntries() {
            return entries;
        }

        public void setEntries(int entries) {
            this.entries = entries;
        }

        public CompletionMode getMode() {
            return mode;
        }

        public void setMode(CompletionMode mode) {
            this.mode = mode;
        }

        public Duration getPollWindow() {
            return pollWindow;
        }

        public void setPollWindow(Duration pollWindow) {
            this.pollWindow = pollWindow;
        }

        public CompletionIdle getIdle() {
            return idle;
        }

        public void setIdle(CompletionIdle idle) {
            this.idle = idle;
        }

        public int getIdleSpins() {
            return idleSpins;
        }

        public void setIdleSpins(int idleSpins) {
            this.idleSpins = idleSpins;
        }

        public int getIdleYields() {
            return idleYields;
        }

        public void setIdleYields(int idleYields) {
            this.idleYields = idleYields;
        }

        public Duration getIdleMinPark() {
            return idleMinPark;
        }

        public void setIdleMinPark(Duration idleMinPark) {
            this.idleMinPark = idleMinPark;
        }

        public Duration getIdleMaxPark() {
            return idleMaxPark;
        }

        public void setIdleMaxPark(Duration idleMaxPark) {
            this.idleMaxPark = idleMaxPark;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public int getCompletionVector() {
            return completionVector;
        }

        public void setCompletionVector(int completionVector) {
            this.completionVector = completionVector;
        }

        public boolean isTimestamps() {
            return timestamps;
        }

        public void setTimestamps(boolean timestamps) {
            this.timestamps = timestamps;
        }
    }

    /**
     * A completion counter (ibv_create_comp_cntr), counting the completions of the op kinds each
     * attached queue pair names under its 'completion-counters'.
     */
    public static class CompletionCounter {

        /**
         * File whose first 16 bytes hold the completion count and the error count, so another
         * process can watch them (IBV_COMP_CNTR_INIT_WITH_EXTERNAL_MEM); unset keeps the counts
         * in provider memory.
         */
        private @Nullable String externalMemory;

        public @Nullable String getExternalMemory() {
            return externalMemory;
        }

        public void setExternalMemory(@Nullable String externalMemory) {
            this.externalMemory = externalMemory;
        }
    }

    /** A protection domain and the resources that live in it. */
    public static class ProtectionDomain {

        /** Registered memory pools by name, each sliced into equal buffers; a queue pair that names no memory-pool uses the protection domain's only one, and with several each names its own. */
        private Map<String, MemoryPool> memoryPools = new LinkedHashMap<>();

        /** Shared receive queues by name. */
        private Map<String, SharedReceiveQueue> sharedReceiveQueues = new LinkedHashMap<>();

        /** Queue pairs by name, each created at startup and a bean. */
        private Map<String, QueuePair> queuePairs = new LinkedHashMap<>();

        /**
         * Queue pair prototypes by name: the keys of 'queue-pairs', checked the same way
         * (references, sizes, device limits), but nothing is created at startup and no bean is
         * registered. A listener naming the prototype in its 'queue-pair-prototype' creates one
         * queue pair from it for every peer it accepts and closes it when the peer goes; every
         * completion queue must hold max-connections copies of each prototype's work requests.
         */
        private Map<String, QueuePair> queuePairPrototypes = new LinkedHashMap<>();

        public Map<String, MemoryPool> getMemoryPools() {
            return memoryPools;
        }

        public void setMemoryPools(Map<String, MemoryPool> memoryPools) {
            this.memoryPools = memoryPools;
        }

        public Map<String, SharedReceiveQueue> getSharedReceiveQueues() {
            return sharedReceiveQueues;
        }

        public void setSharedReceiveQueues(Map<String, SharedReceiveQueue> sharedReceiveQueues) {
            this.sharedReceiveQueues = sharedReceiveQueues;
        }

        public Map<String, QueuePair> getQueuePairs() {
            return queuePairs;
        }

        public void setQueuePairs(Map<String, QueuePair> queuePairs) {
            this.queuePairs = queuePairs;
        }

        public Map<String, QueuePair> getQueuePairPrototypes() {
            return queuePairPrototypes;
        }

        public void setQueuePairPrototypes(Map<String, QueuePair> queuePairPrototypes) {
            this.queuePairPrototypes = queuePairPrototypes;
        }
    }

    /**
     * One registered, page-aligned region sliced into 'count' buffers of 'buffer-size' bytes,
     * leased and returned lock-free. Registered memory is pinned: all pools together must fit in
     * physical memory and under the locked-memory limit, and pinning more than half of physical
     * memory starts with a warning. Each buffer also holds about 88 bytes of heap: all pools'
     * buffers together must fit in half the maximum heap (-Xmx).
     */
    public static class MemoryPool {

        /** Size of each buffer, 1 byte to 2GiB; 4KiB, 4KB and 4096B all mean 4096 bytes. */
        private DataSize bufferSize = DataSize.ofKilobytes(4);

        /**
         * Number of buffers. Each is also about 88 bytes of heap for as long as the application runs
         * (a million buffers ≈ 84 MiB): fewer, larger buffers register the same memory for less heap.
         */
        private int count = 64;

        /**
         * Access rights of the registration: local-write, remote-write, remote-read,
         * remote-atomic, mw-bind, zero-based, on-demand, hugetlb, relaxed-ordering.
         * remote-write and remote-atomic need local-write as well (ibv_reg_mr).
         */
        private List<AccessFlag> access = new ArrayList<>(List.of(AccessFlag.LOCAL_WRITE));

        public DataSize getBufferSize() {
            return bufferSize;
        }

        public void setBufferSize(DataSize bufferSize) {
            this.bufferSize = bufferSize;
        }

        public int getCount() {
            return count;
        }

        public void setCount(int count) {
            this.count = count;
        }

        public List<AccessFlag> getAccess() {
            return access;
        }

        public void setAccess(List<AccessFlag> access) {
            this.access = access;
        }
    }

    /** A shared receive queue (ibv_create_srq), from which the queue pairs that name it take receives. */
    public static class SharedReceiveQueue {

        /** Receive work requests the queue holds. */
        private int maxWr = 1024;

        /** Scatter/gather entries per receive work request. */
        private int maxSge = 1;

        /**
         * Arms IBV_EVENT_SRQ_LIMIT_REACHED when fewer receives than this remain; 0 leaves it
         * disarmed; must be below max-wr.
         */
        private int limit = 0;

        public int getMaxWr() {
            return maxWr;
        }

        public void setMaxWr(int maxWr) {
            this.maxWr = maxWr;
        }

        public int getMaxSge() {
            return maxSge;
        }

        public void setMaxSge(int maxSge) {
            this.maxSge = maxSge;
        }

        public int getLimit() {
            return limit;
        }

        public void setLimit(int limit) {
            this.limit = limit;
        }
    }

    /**
     * A queue pair (ibv_create_qp). Unset capacities, send timeout, reliability settings, port and
     * GID index come from the device.
     */
    public static class QueuePair {

        /**
         * Transport: 'rc' (reliable connected), 'uc' (unreliable connected), 'ud' (datagrams) or
         * 'raw-packet' (Ethernet frames, steered to it by flows). Connections bring up only rc and uc.
         */
        private QueuePairType type = QueuePairType.RC;

        /**
         * Name of the completion queue (on the same device) that send completions go to; unset: the
         * device's only completion queue (with several, one must be named).
         */
        private @Nullable String sendCq;

        /** Name of the completion queue (on the same device) that receive completions go to; unset: send-cq. */
        private @Nullable String recvCq;

        /**
         * Name of a shared receive queue of the same protection domain to take receives from; then
         * max-recv-wr is ignored. Unset: the queue pair has its own receive queue.
         */
        private @Nullable String srq;

        /**
         * Name of a memory pool of the same protection domain that the RdmaTemplate and
         * RdmaListener methods lease this queue pair's send and receive buffers from. Unset: the
         * protection domain's only pool. With several pools it must be set, also on a queue pair
         * used only through raw verbs (which leases nothing from it): the start fails naming this
         * property, as which pool is meant cannot be guessed. With none the queue pair has no
         * buffers, which suits raw verbs on memory regions of its own; the template and listeners
         * refuse it.
         */
        private @Nullable String memoryPool;

        /** Send queue depth; the device's queue-pair-defaults when unset. */
        private @Nullable Integer maxSendWr;

        /** Receive queue depth; the device's queue-pair-defaults when unset. */
        private @Nullable Integer maxRecvWr;

        /** Scatter/gather entries per send work request; the device's queue-pair-defaults when unset. */
        private @Nullable Integer maxSendSge;

        /** Scatter/gather entries per receive work request; the device's queue-pair-defaults when unset. */
        private @Nullable Integer maxRecvSge;

        /** Largest inline send in bytes; the device's queue-pair-defaults when unset. */
        private @Nullable Integer maxInlineData;

        /** Port this queue pair connects through; the device's port when unset. */
        private @Nullable Integer port;

        /** GID index this queue pair connects with; the device's gid-index when unset. */
        private @Nullable Integer gidIndex;

        /** Whether every send work request produces a completion (sq_sig_all), not only those asking for one. */
        private boolean signalAll = false;

        /**
         * How long an RdmaTemplate operation (and a listener's reply) on this queue pair waits for
         * room in its full send queue; then it fails with SendQueueFullException, whose message
         * names this property. 0 fails at once; the device's queue-pair-defaults when unset.
         */
        private @Nullable Duration sendTimeout;

        /**
         * Completion counters to attach, by counter name, with the op kinds each counts for this
         * queue pair (send, recv, rdma-read, remote-rdma-read, rdma-write, remote-rdma-write). Two
         * counters on one queue pair may not count the same op kind; ud and raw-packet queue pairs
         * count only send and recv, uc never reads; the device must support each op kind.
         */
        private Map<String, List<CompletionCounterOp>> completionCounters = new LinkedHashMap<>();

        /**
         * How soon this queue pair notices a peer that stopped answering (rc only: uc and ud have no
         * acknowledgements); each unset value from the device's queue-pair-defaults.
         */
        private final Reliability reliability = new Reliability();

        public QueuePairType getType() {
            return type;
        }

        public void setType(QueuePairType type) {
            this.type = type;
        }

        public @Nullable String getSendCq() {
            return sendCq;
        }

        public void setSendCq(@Nullable String sendCq) {
            this.sendCq = sendCq;
        }

        public @Nullable String getRecvCq() {
            return recvCq;
        }

        public void setRecvCq(@Nullable String recvCq) {
            this.recvCq = recvCq;
        }

        public @Nullable String getSrq() {
            return srq;
        }

        public void setSrq(@Nullable String srq) {
            this.srq = srq;
        }

        public @Nullable String getMemoryPool() {
            return memoryPool;
        }

        public void setMemoryPool(@Nullable String memoryPool) {
            this.memoryPool = memoryPool;
        }

        public @Nullable Integer getMaxSendWr() {
            return maxSendWr;
        }

        public void setMaxSendWr(@Nullable Integer maxSendWr) {
            this.maxSendWr = maxSendWr;
        }

        public @Nullable Integer getMaxRecvWr() {
            return maxRecvWr;
        }

        public void setMaxRecvWr(@Nullable Integer maxRecvWr) {
            this.maxRecvWr = maxRecvWr;
        }

        public @Nullable Integer getMaxSendSge() {
            return maxSendSge;
        }

        public void setMaxSendSge(@Nullable Integer maxSendSge) {
            this.maxSendSge = maxSendSge;
        }

        public @Nullable Integer getMaxRecvSge() {
            return maxRecvSge;
        }

        public void setMaxRecvSge(@Nullable Integer maxRecvSge) {
            this.maxRecvSge = maxRecvSge;
        }

        public @Nullable Integer getMaxInlineData() {
            return maxInlineData;
        }

        public void setMaxInlineData(@Nullable Integer maxInlineData) {
            this.maxInlineData = maxInlineData;
        }

        public @Nullable Integer getPort() {
            return port;
        }

        public void setPort(@Nullable Integer port) {
            this.port = port;
        }

        public @Nullable Integer getGidIndex() {
            return gidIndex;
        }

        public void setGidIndex(@Nullable Integer gidIndex) {
            this.gidIndex = gidIndex;
        }

        public boolean isSignalAll() {
            return signalAll;
        }

        public void setSignalAll(boolean signalAll) {
            this.signalAll = signalAll;
        }

        public @Nullable Duration getSendTimeout() {
            return sendTimeout;
        }

        public void setSendTimeout(@Nullable Duration sendTimeout) {
            this.sendTimeout = sendTimeout;
        }

        public Map<String, List<CompletionCounterOp>> getCompletionCounters() {
            return completionCounters;
        }

        public void setCompletionCounters(Map<String, List<CompletionCounterOp>> completionCounters) {
            this.completionCounters = completionCounters;
        }

        public Reliability getReliability() {
            return reliability;
        }
    }

    /**
     * A flow steering rule (ibv_create_flow) on an Ethernet port, with optional flow counters
     * (bean NAME.counters).
     */
    public static class Flow {

        /** Name of the queue pair (raw-packet or ud, on the same device) that matching packets steer to; required. */
        private @Nullable String queuePair;

        /** Port the rule applies to, which must be Ethernet (RoCE); the device's port when unset. */
        private @Nullable Integer port;

        /** Rule priority, 0 to 65535; lower values take precedence. */
        private int priority = 0;

        /** Which packets match; unset fields match anything. */
        private final FlowMatch match = new FlowMatch();

        /**
         * What the flow's counters collect, one counter point per entry, in index order ('packets'
         * or 'bytes'); empty creates no flow counters. The device must support flow counters.
         */
        private List<CounterDescription> counters = new ArrayList<>();

        public @Nullable String getQueuePair() {
            return queuePair;
        }

        public void setQueuePair(@Nullable String queuePair) {
            this.queuePair = queuePair;
        }

        public @Nullable Integer getPort() {
            return port;
        }

        public void setPort(@Nullable Integer port) {
            this.port = port;
        }

        public int getPriority() {
            return priority;
        }

        public void setPriority(int priority) {
            this.priority = priority;
        }

        public FlowMatch getMatch() {
            return match;
        }

        public List<CounterDescription> getCounters() {
            return counters;
        }

        public void setCounters(List<CounterDescription> counters) {
            this.counters = counters;
        }
    }

    /** The packet fields a flow matches exactly; unset fields are wildcards. */
    public static class FlowMatch {

        /** Destination MAC address, e.g. 02:00:00:00:00:01. */
        private @Nullable String destinationMac;

        /** Ether type, e.g. 0x0800 for IPv4 (write it as a decimal or a quoted hex string). */
        private @Nullable Integer etherType;

        /** Source IPv4 address, dotted. */
        private @Nullable String sourceIpv4;

        /** Destination IPv4 address, dotted. */
        private @Nullable String destinationIpv4;

        /** Transport protocol: 'tcp' or 'udp'; needed for the port fields. */
        private FlowSpec.@Nullable Protocol protocol;

        /** Source TCP/UDP port; needs protocol. */
        private @Nullable Integer sourcePort;

        /** Destination TCP/UDP port; needs protocol. */
        private @Nullable Integer destinationPort;

        public @Nullable String getDestinationMac() {
            return destinationMac;
        }

        public void setDestinationMac(@Nullable String destinationMac) {
            this.destinationMac = destinationMac;
        }

        public @Nullable Integer getEtherType() {
            return etherType;
        }

        public void setEtherType(@Nullable Integer etherType) {
            this.etherType = etherType;
        }

        public @Nullable String getSourceIpv4() {
            return sourceIpv4;
        }

        public void setSourceIpv4(@Nullable String sourceIpv4) {
            this.sourceIpv4 = sourceIpv4;
        }

        public @Nullable String getDestinationIpv4() {
            return destinationIpv4;
        }

        public void setDestinationIpv4(@Nullable String destinationIpv4) {
            this.destinationIpv4 = destinationIpv4;
        }

        public FlowSpec.@Nullable Protocol getProtocol() {
            return protocol;
        }

        public void setProtocol(FlowSpec.@Nullable Protocol protocol) {
            this.protocol = protocol;
        }

        public @Nullable Integer getSourcePort() {
            return sourcePort;
        }

        public void setSourcePort(@Nullable Integer sourcePort) {
            this.sourcePort = sourcePort;
        }

        public @Nullable Integer getDestinationPort() {
            return destinationPort;
        }

        public void setDestinationPort(@Nullable Integer destinationPort) {
            this.destinationPort = destinationPort;
        }
    }

    /**
     * Connections made through the connection manager (rdma_cm on hardware, the simulated
     * fabric's own in-JVM one): listeners that accept peers, and outbound connections to them.
     */
    public static class Connections {

        /** Listeners by name: each binds an address and port and accepts peers. */
        private Map<String, ConnectionListener> listeners = new LinkedHashMap<>();

        /** Outbound connections by name: each connects one declared queue pair to a listener, and again after it fails. */
        private Map<String, OutboundConnection> outbound = new LinkedHashMap<>();

        public Map<String, ConnectionListener> getListeners() {
            return listeners;
        }

        public void setListeners(Map<String, ConnectionListener> listeners) {
            this.listeners = listeners;
        }

        public Map<String, OutboundConnection> getOutbound() {
            return outbound;
        }

        public void setOutbound(Map<String, OutboundConnection> outbound) {
            this.outbound = outbound;
        }
    }

    /**
     * A listener (rdma_bind_addr + rdma_listen), accepting peers for as long as the application
     * runs. Each accepted peer gets a queue pair of its own, created from 'queue-pair-prototype'
     * and named LISTENER#N; or, with 'queue-pair', the one declared queue pair serves a single
     * peer at a time. A peer whose queue pair fails, or that disconnects, is let go at once.
     */
    public static class ConnectionListener {

        /**
         * IPv4 address to listen on (rdma_bind_addr), an IP literal: 0.0.0.0 for every port of the
         * device, or the address of a port's RoCE GID (IPoIB address on InfiniBand). On the
         * simulated fabric port p of the d-th device is 10.d.p.1, and 127.0.0.1 means the local
         * device.
         */
        private String address = "0.0.0.0";

        /**
         * Port to listen on, 0 to 65535; 0 lets the connection manager choose one (shown at
         * /actuator/rdma and by RdmaConnections.boundAddress(name)).
         */
        private int port = 7471;

        /** Connection requests that may wait to be accepted (rdma_listen backlog). */
        private int backlog = 16;

        /**
         * Name of an rc or uc queue pair prototype (under a protection domain's
         * 'queue-pair-prototypes'): every accepted peer gets a queue pair created from it, closed
         * when the peer goes. Set this or 'queue-pair', not both.
         */
        private @Nullable String queuePairPrototype;

        /**
         * Name of a declared rc or uc queue pair that serves one peer at a time, made anew from its
         * declaration for the next peer once one goes (reset where it cannot be: flows steer to it);
         * instead of 'queue-pair-prototype'.
         */
        private @Nullable String queuePair;

        /**
         * Peers connected at once through 'queue-pair-prototype'; a further request waits for a
         * place as long as 'accept-timeout' and is rejected then (its client's connect fails with
         * ECONNREFUSED and tries again). A request from a client whose earlier connection the
         * listener still holds (its disconnect was lost) lets that one go first. The device's
         * max_qp and every completion queue the prototype uses must allow this many copies of it.
         */
        private int maxConnections = 16;

        /**
         * How long accepting one request may take, from the request to the connection being
         * established (rdma_accept until RDMA_CM_EVENT_ESTABLISHED); a client that takes longer
         * is dropped and tries again. Raise it under emulation (Soft-RoCE in a VM).
         */
        private Duration acceptTimeout = Duration.ofSeconds(5);

        public String getAddress() {
            return address;
        }

        public void setAddress(String address) {
            this.address = address;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public int getBacklog() {
            return backlog;
        }

        public void setBacklog(int backlog) {
            this.backlog = backlog;
        }

        public @Nullable String getQueuePairPrototype() {
            return queuePairPrototype;
        }

        public void setQueuePairPrototype(@Nullable String queuePairPrototype) {
            this.queuePairPrototype = queuePairPrototype;
        }

        public @Nullable String getQueuePair() {
            return queuePair;
        }

        public void setQueuePair(@Nullable String queuePair) {
            this.queuePair = queuePair;
        }

        public int getMaxConnections() {
            return maxConnections;
        }

        public void setMaxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
        }

        public Duration getAcceptTimeout() {
            return acceptTimeout;
        }

        public void setAcceptTimeout(Duration acceptTimeout) {
            this.acceptTimeout = acceptTimeout;
        }
    }

    /**
     * A declared queue pair connected to a listener (rdma_resolve_addr, rdma_resolve_route,
     * rdma_connect), each attempt logged. When the queue pair fails (IBV_EVENT_QP_FATAL, a request
     * or access error, or a completion with an error status) or the listener disconnects, the
     * connection is closed, the queue pair moved to RESET and connected again with the same
     * retries and backoff; after the retries it is reported DOWN and attempts go on at backoff.max.
     * Or, with 'service' instead of 'host', a connection to the instances of a service that Spring
     * Cloud's DiscoveryClient finds, following them as they come and go: with
     * 'queue-pair-prototype' to every instance, each on a queue pair made for it; with
     * 'queue-pair' to one instance at a time, chosen by Spring Cloud LoadBalancer where the
     * application has it (else the first listed), on that declared queue pair.
     */
    public static class OutboundConnection {

        /**
         * Name of the declared rc or uc queue pair this connection brings up; a queue pair carries
         * one connection. Required with 'host'; with 'service', instead of 'queue-pair-prototype',
         * it connects one instance of the service at a time: the one Spring Cloud LoadBalancer
         * chooses (the first listed without it), and when that instance leaves the service, the
         * queue pair is made anew and connected to another. A connection that fails is made again
         * on a queue pair made anew from the declaration (reset where it cannot be: flows steer to
         * it); the bean is the first, and the name finds the one in use.
         */
        private @Nullable String queuePair;

        /**
         * Service id whose instances to connect to, as Spring Cloud's DiscoveryClient knows it
         * (needs Spring Cloud Commons and a discovery client); instead of 'host', with
         * 'queue-pair-prototype' (every instance) or 'queue-pair' (one at a time).
         * An instance is connected to when its metadata advertises 'listener'
         * (rdma.listener.NAME.port, and rdma.listener.NAME.address where it differs from the instance's host).
         */
        private @Nullable String service;

        /** Name of the RDMA listener the service's instances advertise; required with 'service'. */
        private @Nullable String listener;

        /**
         * Queue pair prototype (rc or uc) that, with 'service', connects every instance, each on a
         * queue pair of its own made from it; instead of 'queue-pair'. The queue pair is closed
         * when its instance leaves the service.
         */
        private @Nullable String queuePairPrototype;

        /**
         * Instances connected to at once with 'service' and 'queue-pair-prototype', at least 1;
         * unset: 8. Counted against the device's max_qp and the completion queues' sizes like a
         * listener's max-connections. Further instances wait until one leaves.
         */
        private @Nullable Integer maxInstances;

        /**
         * How often the service's instances are read again with 'service' (besides on each
         * discovery HeartbeatEvent); at the next read a departed instance's connection is closed,
         * and then its queue pair ('queue-pair-prototype'), or another instance is chosen for the
         * declared queue pair ('queue-pair'). Must be positive.
         */
        private Duration refreshInterval = Duration.ofSeconds(30);

        /**
         * Address of the listener, required unless 'service' is set: an IPv4 address of its RDMA port, or a host name
         * resolving to one. A loopback address (127.0.0.1, localhost) on a real device means this
         * host: rdma_cm cannot route loopback to a device, so the connection goes to the IPv4
         * address of the port's RoCE v2 GID (IPoIB address on InfiniBand), logged once; the
         * simulated fabric routes loopback itself.
         */
        private @Nullable String host;

        /** Port the listener listens on, 1 to 65535. */
        private int port = 7471;

        /** How long one attempt (address and route resolution, connect) may take; must be positive. */
        private Duration timeout = Duration.ofSeconds(5);

        /** Further attempts after a failed one before the start fails (at runtime: before the connection is reported DOWN). */
        private int retries = 3;

        /** Pauses between attempts. */
        private final Backoff backoff = new Backoff();

        public @Nullable String getQueuePair() {
            return queuePair;
        }

        public void setQueuePair(@Nullable String queuePair) {
            this.queuePair = queuePair;
        }

        public @Nullable String getService() {
            return service;
        }

        public void setService(@Nullable String service) {
            this.service = service;
        }

        public @Nullable String getListener() {
            return listener;
        }

        public void setListener(@Nullable String listener) {
            this.listener = listener;
        }

        public @Nullable String getQueuePairPrototype() {
            return queuePairPrototype;
        }

        public void setQueuePairPrototype(@Nullable String queuePairPrototype) {
            this.queuePairPrototype = queuePairPrototype;
        }

        public @Nullable Integer getMaxInstances() {
            return maxInstances;
        }

        public void setMaxInstances(@Nullable Integer maxInstances) {
            this.maxInstances = maxInstances;
        }

        public Duration getRefreshInterval() {
            return refreshInterval;
        }

        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }

        public @Nullable String getHost() {
            return host;
        }

        public void setHost(@Nullable String host) {
            this.host = host;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public int getRetries() {
            return retries;
        }

        public void setRetries(int retries) {
            this.retries = retries;
        }

        public Backoff getBackoff() {
            return backoff;
        }
    }

    /** Exponential backoff between connection attempts: initial, then times multiplier, up to max. */
    public static class Backoff {

        /** Pause after the first failed attempt. */
        private Duration initial = Duration.ofMillis(200);

        /** Factor each further pause grows by, at least 1 (1: constant pauses). */
        private double multiplier = 2.0;

        /** Longest pause, at least backoff.initial; a connection reported DOWN goes on attempting at this pace. */
        private Duration max = Duration.ofSeconds(5);

        public Duration getInitial() {
            return initial;
        }

        public void setInitial(Duration initial) {
            this.initial = initial;
        }

        public double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMax() {
            return max;
        }

        public void setMax(Duration max) {
            this.max = max;
        }
    }

    /** Shutdown of the declared resources. */
    public static class Shutdown {

        /**
         * How long outstanding send work requests may take to complete at shutdown before their
         * queue pairs are moved to ERR, which flushes them.
         */
        private Duration drainTimeout = Duration.ofSeconds(2);

        public Duration getDrainTimeout() {
            return drainTimeout;
        }

        public void setDrainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
        }
    }

    /** The RdmaTemplate's request/reply. */
    public static class Template {

        /**
         * How long sendAndReceive and convertSendAndReceive wait for a reply when the call gives no
         * timeout of its own; then the future fails with an RdmaReplyTimeoutException, and a reply
         * that comes later is dropped and counted.
         */
        private Duration replyTimeout = RdmaTemplate.DEFAULT_REPLY_TIMEOUT;

        public Duration getReplyTimeout() {
            return replyTimeout;
        }

        public void setReplyTimeout(Duration replyTimeout) {
            this.replyTimeout = replyTimeout;
        }
    }
}
