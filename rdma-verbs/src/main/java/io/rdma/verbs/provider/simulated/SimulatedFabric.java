package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.support.LiveObjectCensus;
import io.rdma.verbs.spi.DeviceHandle;
import io.rdma.verbs.spi.ProviderSession;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * One software fabric: its devices and ports, the tables that route packets (LID and GID to
 * port, QP number to QP, key to memory region), the live-object census, and the two threads
 * that stand in for hardware timers and the async event queue.
 */
final class SimulatedFabric implements ProviderSession, FabricControl {

    private final List<SimulatedDevice> devices = new ArrayList<>();
    private final Map<Integer, SimulatedPort> portsByLid = new HashMap<>();
    private final Map<Gid, SimulatedPort> portsByGid = new HashMap<>();
    private final List<SimulatedPort> ethernetPorts = new ArrayList<>();
    private final ObjectTable<SimulatedQp> queuePairs = new ObjectTable<>(2);
    private final ObjectTable<SimulatedMr> memoryRegions = new ObjectTable<>(1);
    private final LiveObjectCensus census = new LiveObjectCensus();
    private final SimulatedConnectionManager connections = new SimulatedConnectionManager(this);
    private final ScheduledExecutorService timers;
    private final ScheduledExecutorService events;

    SimulatedFabric(List<DeviceSpec> specs) {
        Set<String> names = new HashSet<>();
        int nextLid = 1;
        for (int d = 0; d < specs.size(); d++) {
            DeviceSpec spec = specs.get(d);
            if (!names.add(spec.name())) {
                throw new VerbsException("ibv_get_device_list", Errno.EEXIST, "two simulated devices are named '"
                        + spec.name() + "'", "give every simulated device its own name");
            }
            SimulatedDevice device = new SimulatedDevice(this, spec, d);
            devices.add(device);
            for (SimulatedPort port : device.ports()) {
                if (spec.linkLayer() == LinkLayer.INFINIBAND) {
                    // Without a subnet manager the port keeps LID 0, and nothing can address it.
                    if (spec.subnetManager()) {
                        port.assignLid(nextLid++);
                        portsByLid.put(port.lid(), port);
                    }
                } else {
                    ethernetPorts.add(port);
                }
                for (Gid gid : port.gids()) {
                    portsByGid.putIfAbsent(gid, port);
                }
            }
        }
        timers = singleThread("rdma-sim-timers");
        events = singleThread("rdma-sim-events");
    }

    private static ScheduledExecutorService singleThread(String name) {
        ThreadFactory factory = Thread.ofPlatform().name(name).daemon(true).factory();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, factory);
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    @Override
    public List<DeviceHandle> devices() {
        return List.copyOf(devices);
    }

    @Override
    public Map<ResourceKind, Long> liveObjects() {
        return census.snapshot();
    }

    /** The fabric is its own {@link FabricControl}, the one extension it offers. */
    @Override
    public <T> Optional<T> extension(Class<T> type) {
        return type == FabricControl.class ? Optional.of(type.cast(this)) : Optional.empty();
    }

    @Override
    public void close() {
        timers.shutdownNow();
        events.shutdownNow();
    }

    LiveObjectCensus census() {
        return census;
    }

    ObjectTable<SimulatedQp> queuePairs() {
        return queuePairs;
    }

    ObjectTable<SimulatedMr> memoryRegions() {
        return memoryRegions;
    }

    List<SimulatedPort> ethernetPorts() {
        return ethernetPorts;
    }

    SimulatedConnectionManager connections() {
        return connections;
    }

    /** The port with {@code gid} in its table, or null. */
    @Nullable SimulatedPort portByGid(Gid gid) {
        return portsByGid.get(gid);
    }

    /** The port an address vector names: by GID when it has a GRH, else by LID; null when nothing answers. */
    @Nullable SimulatedPort route(io.rdma.verbs.api.AddressVector addressVector) {
        return addressVector.isGlobal()
                ? portsByGid.get(addressVector.globalRoute().destinationGid())
                : portsByLid.get(addressVector.destinationLid());
    }

    /** Runs {@code task} after {@code nanos}, on the timer thread (RNR and ACK timeouts). */
    void schedule(Runnable task, long nanos) {
        if (!timers.isShutdown()) {
            timers.schedule(task, nanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Runs {@code task} on the event thread: async events and failures of other QPs. */
    void defer(Runnable task) {
        if (!events.isShutdown()) {
            events.execute(task);
        }
    }

    private SimulatedDevice device(String name) {
        for (SimulatedDevice device : devices) {
            if (device.name().equals(name)) {
                return device;
            }
        }
        throw new IllegalArgumentException("no simulated device named '" + name + "'; devices: "
                + devices.stream().map(SimulatedDevice::name).toList());
    }

    @Override
    public void setPortState(String device, int port, PortState state) {
        device(device).port(port).changeState(state);
    }

    @Override
    public void dropPackets(String device, int port, int packets) {
        device(device).port(port).dropNext(packets);
    }

    @Override
    public void failQueuePair(String device, int qpNumber) {
        SimulatedQp qp = queuePairs.get(qpNumber);
        if (qp == null || qp.device() != device(device)) {
            throw new IllegalArgumentException("no QP 0x" + Integer.toHexString(qpNumber) + " on " + device);
        }
        qp.failFromFabric(io.rdma.verbs.api.AsyncEventType.QP_FATAL);
    }

    @Override
    public void failNextVerb(String device, String verb, Errno errno) {
        device(device).failNext(verb, errno);
    }
}
