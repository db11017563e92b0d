package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.GlobalRoute;
import io.rdma.verbs.api.VerbsException;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * One software network and what is common to every host on it ({@link SimulatedHost}): the
 * tables that route packets (LID and GID to port, QP number to QP, key to memory region), the
 * connection manager, the numbers of the hosts on it, and the two threads that stand in for
 * hardware timers and the async event queue. Hosts put their ports on it when they join and take
 * them off when they leave; {@link FabricRegistry} says when a fabric starts and ends.
 */
final class SimulatedFabric {

    /**
     * A host's number is the last octet of its ports' IPv4 addresses ({@link SimulatedPort}),
     * which leaves 1..254 once 0 (the network) and 255 (broadcast) are set aside.
     */
    private static final int MAX_HOSTS = 254;

    private final String name;
    // Hosts join and leave while others route through these: the data path reads them without a lock.
    private final Map<Integer, SimulatedPort> portsByLid = new ConcurrentHashMap<>();
    private final Map<Gid, SimulatedPort> portsByGid = new ConcurrentHashMap<>();
    private final List<SimulatedPort> ethernetPorts = new CopyOnWriteArrayList<>();
    private final ObjectTable<SimulatedQp> queuePairs = new ObjectTable<>(2);
    private final ObjectTable<SimulatedMr> memoryRegions = new ObjectTable<>(1);
    private final SimulatedConnectionManager connections = new SimulatedConnectionManager(this);
    private final BitSet hostNumbers = new BitSet();
    private final ScheduledExecutorService timers = singleThread("rdma-sim-timers");
    private final ScheduledExecutorService events = singleThread("rdma-sim-events");

    /** {@code name} as errors show it: a shared fabric's name, or what a private one is. */
    SimulatedFabric(String name) {
        this.name = name;
    }

    private static ScheduledExecutorService singleThread(String name) {
        ThreadFactory factory = Thread.ofPlatform().name(name).daemon(true).factory();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, factory);
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /**
     * Takes the lowest host number free, from 1, so that a lone host has the addresses it always
     * had and a host that joins after one left takes the number it left free.
     */
    synchronized int admitHost() {
        int number = hostNumbers.nextClearBit(1);
        if (number > MAX_HOSTS) {
            throw new VerbsException("ibv_get_device_list", Errno.ENOSPC, name + " already has " + MAX_HOSTS
                    + " hosts, as many as the last octet of their addresses 10.<device>.<port>.<host> can number",
                    "close a session on it, or give some sessions another fabric");
        }
        hostNumbers.set(number);
        return number;
    }

    /** Frees host number {@code number}; true when no host is left, and the fabric is done. */
    synchronized boolean releaseHost(int number) {
        hostNumbers.clear(number);
        return hostNumbers.isEmpty();
    }

    /**
     * Puts the ports of {@code device} on the network: each InfiniBand port gets the lowest LID
     * free (where a subnet manager runs; without one it keeps LID 0, and nothing can address it),
     * each Ethernet port joins the one broadcast segment, and every GID routes to its port unless
     * another port already answers to it.
     */
    synchronized void attach(SimulatedDevice device) {
        for (SimulatedPort port : device.ports()) {
            if (port.isEthernet()) {
                ethernetPorts.add(port);
            } else if (device.spec().subnetManager()) {
                port.assignLid(lowestFreeLid());
                portsByLid.put(port.lid(), port);
            }
            for (Gid gid : port.gids()) {
                portsByGid.putIfAbsent(gid, port);
            }
        }
    }

    /** Takes the ports of {@code device} off the network: nothing routes to them any more. */
    synchronized void detach(SimulatedDevice device) {
        for (SimulatedPort port : device.ports()) {
            ethernetPorts.remove(port);
            portsByLid.remove(port.lid(), port);
            for (Gid gid : port.gids()) {
                portsByGid.remove(gid, port);
            }
        }
    }

    private int lowestFreeLid() {
        int lid = 1;
        while (portsByLid.containsKey(lid)) {
            lid++;
        }
        return lid;
    }

    /** Stops the timer and event threads, once the last host has left. */
    void shutdown() {
        timers.shutdownNow();
        events.shutdownNow();
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

    /** The port with {@code gid} in its table, on whichever host, or null. */
    @Nullable SimulatedPort portByGid(Gid gid) {
        return portsByGid.get(gid);
    }

    /** The port an address vector names: by GID when it has a GRH, else by LID; null when nothing answers. */
    @Nullable SimulatedPort route(AddressVector addressVector) {
        GlobalRoute route = addressVector.globalRoute();
        return route != null ? portsByGid.get(route.destinationGid()) : portsByLid.get(addressVector.destinationLid());
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
}
