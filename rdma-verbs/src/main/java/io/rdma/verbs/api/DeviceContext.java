package io.rdma.verbs.api;

import io.rdma.verbs.spi.ChannelHandle;
import io.rdma.verbs.spi.ContextHandle;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * An opened device ({@code struct ibv_context}): queries, the resources created directly on
 * the device (PDs, CQs, completion channels, completion and flow counters) and async events.
 *
 * <p>Closing it destroys everything created from it, in libibverbs' order ({@link ResourceKind}),
 * then the context. The verbs manual (§2.6) requires every resource freed before
 * {@code ibv_close_device}, and leaks in the kernel otherwise; here the close does it.
 *
 * <p>Thread-safe: creations and closes on one context are serialized by its lifecycle lock;
 * queries and listener registration may come from any thread.
 */
public final class DeviceContext extends VerbsResource {

    private static final System.Logger LOG = System.getLogger(DeviceContext.class.getName());

    private final Device device;
    private final ContextHandle handle;
    private final ReentrantLock lifecycleLock = new ReentrantLock();
    /** Every open resource of this context by its provider handle: maps async events back, counts leaks. */
    private final Map<Object, VerbsResource> resourcesByHandle = new ConcurrentHashMap<>();
    private final List<AsyncEventListener> listeners = new CopyOnWriteArrayList<>();
    private final HeldDisconnects heldDisconnects = new HeldDisconnects(this);
    private final ActivePortWait activePortWait = new ActivePortWait(this);

    DeviceContext(Device device, ContextHandle handle) {
        super(ResourceKind.DEVICE_CONTEXT, null, handle, List.of());
        this.device = device;
        this.handle = handle;
        resourcesByHandle.put(handle, this);
        listeners.add(heldDisconnects);
        listeners.add(activePortWait);
        handle.startAsyncEvents(this::dispatch);
    }

    public Device device() {
        return device;
    }

    public String deviceName() {
        return device.name();
    }

    /**
     * {@code ibv_query_device}.
     *
     * @throws VerbsException the errno {@code ibv_query_device} fails with
     * @throws ResourceClosedException when the context is closed
     */
    public DeviceAttributes queryDevice() {
        ensureOpen();
        return handle.queryDevice();
    }

    /**
     * {@code ibv_query_port}; ports are numbered from 1.
     *
     * @throws VerbsException EINVAL when {@code port} is not a port of the device; the errno
     *         {@code ibv_query_port} fails with
     * @throws ResourceClosedException when the context is closed
     */
    public PortAttributes queryPort(int port) {
        ensureOpen();
        checkPort(port, "ibv_query_port");
        return handle.queryPort(port);
    }

    /**
     * {@code ibv_query_gid}.
     *
     * @throws VerbsException EINVAL when {@code port} is not a port of the device or {@code index}
     *         is outside its GID table; the errno {@code ibv_query_gid} fails with
     * @throws ResourceClosedException when the context is closed
     */
    public Gid queryGid(int port, int index) {
        ensureOpen();
        checkPort(port, "ibv_query_gid");
        return handle.queryGid(port, index);
    }

    /**
     * The used entries of a port's GID table with their types and network devices, as
     * {@code show_gids} lists them (sysfs {@code gid_attrs} on Linux); empty entries are left out.
     *
     * @throws VerbsException EINVAL when {@code port} is not a port of the device or has no sysfs
     *         directory
     * @throws ResourceClosedException when the context is closed
     */
    public List<GidEntry> queryGidTable(int port) {
        ensureOpen();
        checkPort(port, "GID table");
        return handle.gidTable(port);
    }

    /**
     * All port and hardware counters of {@code port} in one read, as the device exposes them
     * (sysfs on Linux): u64s, see {@link Unsigned64}. Each call reads every counter again; a
     * caller that wants several of them reads once and takes them from the one snapshot.
     *
     * @throws VerbsException EINVAL when {@code port} is not a port of the device or has no sysfs
     *         directory; EIO when the counter directory cannot be listed
     * @throws ResourceClosedException when the context is closed
     */
    public PortCounters portCounters(int port) {
        ensureOpen();
        checkPort(port, "port counters");
        return handle.portCounters(port);
    }

    private void checkPort(int port, String verb) {
        int ports = handle.queryDevice().physicalPortCount();
        if (port < 1 || port > ports) {
            throw new VerbsException(verb, Errno.EINVAL, "port " + port + " does not exist on " + deviceName(),
                    "ports are numbered 1.." + ports);
        }
    }

    /**
     * {@code ibv_alloc_pd}.
     *
     * @throws VerbsException ENOMEM when the device holds its {@code max_pd} PDs; the errno
     *         {@code ibv_alloc_pd} fails with
     * @throws ResourceClosedException when the context is closed
     */
    public ProtectionDomain allocateProtectionDomain() {
        return create(() -> new ProtectionDomain(this, handle.allocatePd()));
    }

    /**
     * {@code ibv_create_comp_channel}: a channel CQs signal for event-driven completion (verbs manual §5.1).
     *
     * @throws VerbsException the errno {@code ibv_create_comp_channel} fails with
     * @throws ResourceClosedException when the context is closed
     */
    public CompletionChannel createCompletionChannel() {
        return create(() -> new CompletionChannel(this, handle.createCompletionChannel()));
    }

    /**
     * {@code ibv_create_cq} / {@code ibv_create_cq_ex}.
     *
     * @throws VerbsException EINVAL when {@code entries} is outside 1 to {@code max_cqe}, the
     *         completion vector does not exist or the channel belongs to another context;
     *         EOPNOTSUPP when timestamps are asked of a device without them; ENOMEM when the device
     *         holds its {@code max_cq} CQs; the errno {@code ibv_create_cq} fails with
     * @throws ResourceClosedException when the context or the options' channel is closed
     */
    public CompletionQueue createCompletionQueue(CompletionQueueOptions options) {
        return create(() -> {
            CompletionChannel channel = options.channel();
            if (channel != null) {
                channel.ensureOpen();
                if (channel.context() != this) {
                    throw new VerbsException("ibv_create_cq", Errno.EINVAL,
                            "the completion channel belongs to another device context", null);
                }
            }
            ChannelHandle channelHandle = channel == null ? null : channel.channelHandle();
            return new CompletionQueue(this, options, handle.createCompletionQueue(options.entries(), channelHandle,
                    options.completionVector(), options.completionTimestamps()));
        });
    }

    /**
     * {@code ibv_create_cq} of {@code entries} without a channel.
     *
     * @throws VerbsException as {@link #createCompletionQueue(CompletionQueueOptions)}
     * @throws ResourceClosedException when the context is closed
     */
    public CompletionQueue createCompletionQueue(int entries) {
        return createCompletionQueue(CompletionQueueOptions.of(entries));
    }

    /**
     * {@code ibv_create_comp_cntr}. The native provider counts in software where the device or
     * library has no completion counters ({@link CompletionCounterMode#SOFTWARE}).
     *
     * @throws VerbsException ENOTSUP where a simulated device has no completion counters; ENOMEM
     *         when the device holds its maximum; EINVAL when external memory is not native, 8-byte
     *         aligned, at least 8 bytes and shared between threads (ibv_create_comp_cntr(3))
     * @throws ResourceClosedException when the context is closed
     */
    public CompletionCounter createCompletionCounter(CompletionCounterOptions options) {
        return create(() -> new CompletionCounter(this, handle.createCompletionCounter(options)));
    }

    /**
     * {@code ibv_create_comp_cntr} with provider-allocated counts.
     *
     * @throws VerbsException as {@link #createCompletionCounter(CompletionCounterOptions)}
     * @throws ResourceClosedException when the context is closed
     */
    public CompletionCounter createCompletionCounter() {
        return createCompletionCounter(CompletionCounterOptions.internalMemory());
    }

    /**
     * {@code ibv_create_counters}: flow counters.
     *
     * @throws VerbsException EOPNOTSUPP where the device has none (ibv_create_counters(3)); ENOMEM
     *         when it cannot create more
     * @throws ResourceClosedException when the context is closed
     */
    public FlowCounters createFlowCounters() {
        return create(() -> new FlowCounters(this, handle.createFlowCounters()));
    }

    public void addAsyncEventListener(AsyncEventListener listener) {
        listeners.add(listener);
    }

    public void removeAsyncEventListener(AsyncEventListener listener) {
        listeners.remove(listener);
    }

    /** Open resources of this context per kind (this context included), as the API tracks them. */
    public Map<ResourceKind, Long> openResources() {
        Map<ResourceKind, Long> counts = new EnumMap<>(ResourceKind.class);
        for (ResourceKind kind : ResourceKind.values()) {
            counts.put(kind, 0L);
        }
        for (VerbsResource resource : resourcesByHandle.values()) {
            counts.merge(resource.kind(), 1L, Long::sum);
        }
        return counts;
    }

    /** Runs a creation under the lifecycle lock, so it cannot interleave with a close of this context. */
    <T extends VerbsResource> T create(Supplier<T> creation) {
        lifecycleLock.lock();
        try {
            ensureOpen();
            T resource = creation.get();
            resourcesByHandle.put(resource.handle(), resource);
            return resource;
        } finally {
            lifecycleLock.unlock();
        }
    }

    /** Whether a port of the device is ACTIVE: whether a connection manager message can leave. */
    boolean hasActivePort() {
        int ports = queryDevice().physicalPortCount();
        for (int port = 1; port <= ports; port++) {
            if (handle.queryPort(port).state() == PortState.ACTIVE) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether no port event is worth waiting for: a port is ACTIVE, or the ports cannot be queried
     * (the device removed, say), when no event would ever come and the next verb says what became
     * of the device.
     */
    boolean hasActivePortOrCannotTell() {
        try {
            return hasActivePort();
        } catch (RuntimeException e) {
            return true;
        }
    }

    HeldDisconnects heldDisconnects() {
        return heldDisconnects;
    }

    ActivePortWait activePortWait() {
        return activePortWait;
    }

    ReentrantLock lifecycleLock() {
        return lifecycleLock;
    }

    @Nullable VerbsResource resourceFor(Object providerHandle) {
        return resourcesByHandle.get(providerHandle);
    }

    void forget(VerbsResource resource) {
        resourcesByHandle.remove(resource.handle());
    }

    private void dispatch(AsyncEventType type, @Nullable Object element, int port) {
        VerbsResource resource = element == null ? null : resourcesByHandle.get(element);
        AsyncEvent event = new AsyncEvent(type, resource, port);
        for (AsyncEventListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "async event listener failed on " + event, e);
            }
        }
    }


    @Override
    void destroyHandle() {
        heldDisconnects.sendAllNow();
        handle.close();
        device.verbs().closed(this);
    }

    @Override
    String describe() {
        return "device context " + deviceName();
    }
}
