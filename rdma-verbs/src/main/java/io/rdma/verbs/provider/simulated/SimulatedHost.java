package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.support.LiveObjectCensus;
import io.rdma.verbs.spi.DeviceHandle;
import io.rdma.verbs.spi.ProviderSession;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * One session of the simulated provider: a host on a fabric, with its own devices (named
 * uniquely within the host only), the census of the objects made on them, its number on the
 * fabric (the last octet of its addresses), and the port numbers its connection manager hands
 * out. It is the session's {@link FabricControl}, acting on its own devices. Closing it takes
 * its ports off the fabric and leaves the fabric.
 */
final class SimulatedHost implements ProviderSession, FabricControl {

    /** The first port number the host picks for rdma_cm: where IANA's dynamic range starts. */
    private static final int FIRST_EPHEMERAL_PORT = 49152;

    private final SimulatedFabric fabric;
    private final int number;
    private final List<SimulatedDevice> devices;
    private final LiveObjectCensus census = new LiveObjectCensus();
    private final AtomicInteger nextEphemeralPort = new AtomicInteger(FIRST_EPHEMERAL_PORT);
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Builds the devices {@code specs} describe and puts their ports on {@code fabric} as host {@code number}. */
    SimulatedHost(SimulatedFabric fabric, int number, List<DeviceSpec> specs) {
        requireDistinctNames(specs);
        this.fabric = fabric;
        this.number = number;
        this.devices = IntStream.range(0, specs.size()).mapToObj(d -> new SimulatedDevice(this, specs.get(d), d))
                .toList();
        devices.forEach(fabric::attach);
    }

    private static void requireDistinctNames(List<DeviceSpec> specs) {
        Set<String> names = new HashSet<>();
        for (DeviceSpec spec : specs) {
            if (!names.add(spec.name())) {
                throw new VerbsException("ibv_get_device_list", Errno.EEXIST, "two simulated devices are named '"
                        + spec.name() + "'", "give every simulated device its own name");
            }
        }
    }

    @Override
    public List<DeviceHandle> devices() {
        return List.copyOf(devices);
    }

    /** This host's objects only: another session on the same fabric counts its own. */
    @Override
    public Map<ResourceKind, Long> liveObjects() {
        return census.snapshot();
    }

    /** The host is its own {@link FabricControl}, the one extension it offers. */
    @Override
    public <T> Optional<T> extension(Class<T> type) {
        return type == FabricControl.class ? Optional.of(type.cast(this)) : Optional.empty();
    }

    /** Takes this host's ports off the fabric, then leaves it; its objects were destroyed before. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            devices.forEach(fabric::detach);
            FabricRegistry.leave(fabric, number);
        }
    }

    SimulatedFabric fabric() {
        return fabric;
    }

    /** The host's number on its fabric, from 1: the last octet of its ports' IPv4 addresses. */
    int number() {
        return number;
    }

    LiveObjectCensus census() {
        return census;
    }

    /** A port number for rdma_cm to bind when the application leaves the choice to the host. */
    int nextEphemeralPort() {
        return nextEphemeralPort.getAndIncrement();
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
    public void setLoss(String device, int port, double probability) {
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("a loss probability is within 0 to 1, not " + probability);
        }
        device(device).port(port).setLoss(probability);
    }

    @Override
    public void failQueuePair(String device, int qpNumber) {
        SimulatedQp qp = fabric.queuePairs().get(qpNumber);
        if (qp == null || qp.device() != device(device)) {
            throw new IllegalArgumentException("no QP 0x" + Integer.toHexString(qpNumber) + " on " + device);
        }
        qp.failFromFabric(AsyncEventType.QP_FATAL);
    }

    @Override
    public void failNextVerb(String device, String verb, Errno errno) {
        device(device).failNext(verb, errno);
    }
}
