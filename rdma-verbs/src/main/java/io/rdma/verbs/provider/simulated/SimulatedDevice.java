package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.DeviceNode;
import io.rdma.verbs.api.DeviceNodeAccess;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.HostAccess;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.ContextHandle;
import io.rdma.verbs.spi.DeviceHandle;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;

/** A simulated HCA: its spec, ports, resource counts against its limits, and injected failures. */
final class SimulatedDevice implements DeviceHandle {

    /**
     * Mellanox's OUI b8:ce:f6 as mlx5 node GUIDs carry it: the top bit is set, so a GUID read as a
     * signed number goes negative here as it does on real hardware.
     */
    private static final long GUID_BASE = 0xb8ce_f603_0000_0000L;

    private final SimulatedHost host;
    private final DeviceSpec spec;
    private final int index;
    private final long guid;
    private final List<SimulatedPort> ports;
    private final AtomicIntegerArray inUse = new AtomicIntegerArray(ResourceKind.values().length);
    private final Map<String, Errno> failNext = new ConcurrentHashMap<>();
    private final List<SimulatedContext> contexts = new CopyOnWriteArrayList<>();

    SimulatedDevice(SimulatedHost host, DeviceSpec spec, int index) {
        this.host = host;
        this.spec = spec;
        this.index = index;
        this.guid = nodeGuid(host.number(), index);
        this.ports = IntStream.rangeClosed(1, spec.ports()).mapToObj(n -> new SimulatedPort(this, n)).toList();
    }

    /**
     * The device in bits 16..31 and the host in bits 8..15 (host 1 as 0, so a lone host keeps
     * the GUIDs it always had), which leaves bits 0..7 for the port GUIDs' port number: no two
     * ports of a fabric share a GUID, nor the link-local GID made from it.
     */
    private static long nodeGuid(int host, int index) {
        return GUID_BASE | ((long) (index + 1) << 16) | ((long) (host - 1) << 8);
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public long guid() {
        return guid;
    }

    /**
     * The spec's: InfiniBand's transport (on InfiniBand or Ethernet ports alike), or iWARP's, whose
     * device refuses what siw refuses ({@link DeviceSpec}).
     */
    @Override
    public TransportType transportType() {
        return spec.transport();
    }

    /** As the spec describes the device's host; the node paths are those the device would have there. */
    @Override
    public HostAccess hostAccess() {
        return new HostAccess(new DeviceNode(verbsNodePath(), spec.verbsNodeAccess()),
                new DeviceNode("/dev/infiniband/rdma_cm", spec.connectionManagerNodeAccess()), spec.lockedMemory());
    }

    private String verbsNodePath() {
        return "/dev/infiniband/uverbs" + index;
    }

    @Override
    public ContextHandle open() {
        checkInjected("ibv_open_device");
        if (!spec.verbsNodeAccess().usable()) {
            // What libibverbs gets from open(2) on the node: ENOENT when absent, EACCES otherwise.
            throw new VerbsException("ibv_open_device", spec.verbsNodeAccess() == DeviceNodeAccess.MISSING
                    ? Errno.ENOENT : Errno.EACCES, "simulated device " + name() + ": "
                    + verbsNodePath() + " is " + spec.verbsNodeAccess(), null);
        }
        SimulatedContext context = new SimulatedContext(this);
        contexts.add(context);
        host.census().created(ResourceKind.DEVICE_CONTEXT);
        return context;
    }

    void closed(SimulatedContext context) {
        contexts.remove(context);
        host.census().destroyed(ResourceKind.DEVICE_CONTEXT);
    }

    SimulatedHost host() {
        return host;
    }

    SimulatedFabric fabric() {
        return host.fabric();
    }

    DeviceSpec spec() {
        return spec;
    }

    int index() {
        return index;
    }

    List<SimulatedPort> ports() {
        return ports;
    }

    /** Port {@code number}, 1-based; EINVAL naming the ports there are otherwise. */
    SimulatedPort port(int number) {
        if (number < 1 || number > ports.size()) {
            throw Failures.invalid("ibv_modify_qp", "port " + number + " does not exist on " + name(),
                    "ports are numbered 1.." + ports.size());
        }
        return ports.get(number - 1);
    }

    void failNext(String verb, Errno errno) {
        failNext.put(verb, errno);
    }

    /** Throws the failure injected for {@code verb}, once. */
    void checkInjected(String verb) {
        Errno errno = failNext.remove(verb);
        if (errno != null) {
            throw new VerbsException(verb, errno, "failure injected on simulated device " + name(), null);
        }
    }

    /**
     * Counts one more object of {@code kind} against {@code limit}: injected failures first,
     * then ENOMEM at the limit. Pair with {@link #release}.
     */
    void reserve(ResourceKind kind, int limit, String verb, String what) {
        checkInjected(verb);
        if (inUse.incrementAndGet(kind.ordinal()) > limit) {
            inUse.decrementAndGet(kind.ordinal());
            throw Failures.exhausted(verb, what, limit);
        }
        host.census().created(kind);
    }

    void release(ResourceKind kind) {
        inUse.decrementAndGet(kind.ordinal());
        host.census().destroyed(kind);
    }

    /** Delivers a port event to every open context of this device. */
    void raisePortEvent(AsyncEventType type, int port) {
        for (SimulatedContext context : contexts) {
            context.raise(type, null, port);
        }
    }
}
