package io.rdma.verbs.api;

import io.rdma.verbs.spi.ContextHandle;
import io.rdma.verbs.spi.DeviceHandle;
import io.rdma.verbs.spi.ProviderAvailability;
import io.rdma.verbs.spi.ProviderSession;
import io.rdma.verbs.spi.VerbsProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The entry point: a chosen provider and its device list ({@code ibv_get_device_list}).
 * Closing it closes every device context opened from it, each with all its resources, then
 * frees the list ({@code ibv_free_device_list}, verbs manual §11.3 step 9).
 *
 * <p>Thread-safe: the device list is immutable and contexts may be opened from any thread.
 *
 * <pre>{@code
 * try (Verbs verbs = Verbs.open(ProviderKind.AUTO);
 *      DeviceContext context = verbs.devices().getFirst().open()) {
 *     ProtectionDomain pd = context.allocateProtectionDomain();
 *     ...
 * }
 * }</pre>
 */
public final class Verbs implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Verbs.class.getName());

    private final String providerName;
    private final ProviderKind requested;
    private final String selectionReason;
    private final ProviderSession session;
    private final List<Device> devices;
    private final List<DeviceContext> openContexts = new CopyOnWriteArrayList<>();
    /**
     * Opens hold it shared and {@link #close()} exclusively while it marks the list closed, so
     * that a close neither misses a context being opened nor frees the list under an
     * {@code ibv_open_device} that uses it.
     */
    private final ReadWriteLock openLock = new ReentrantReadWriteLock();
    private volatile boolean closed;

    private Verbs(String providerName, ProviderKind requested, String selectionReason, ProviderSession session) {
        this.providerName = providerName;
        this.requested = requested;
        this.selectionReason = selectionReason;
        this.session = session;
        List<Device> list = new ArrayList<>();
        for (DeviceHandle handle : session.devices()) {
            list.add(new Device(this, handle));
        }
        this.devices = List.copyOf(list);
    }

    /**
     * Opens the provider {@code kind} selects with its defaults (the simulated fabric's: one device, {@code sim0}).
     *
     * @throws VerbsException as {@link #open(ProviderKind, List)}
     */
    public static Verbs open(ProviderKind kind) {
        return open(kind, List.of());
    }

    /**
     * Opens the provider {@code kind} selects, handing it {@code settings}: these may be meant for
     * any provider ({@code auto} decides which serves only here), and the chosen one ignores
     * those meant for another. The simulated fabric takes the devices to create from them.
     *
     * @throws VerbsException {@code ibv_get_device_list} with ENOSYS when the requested provider is
     *         not on the class path, ENODEV when it cannot run here (no rdma-core, no device) or,
     *         for {@code auto}, when neither provider can; any errno the provider's list fails with
     */
    public static Verbs open(ProviderKind kind, List<? extends ProviderSettings> settings) {
        return switch (kind) {
            case NATIVE -> openRequired(ProviderKind.NATIVE, settings);
            case SIMULATED -> openRequired(ProviderKind.SIMULATED, settings);
            case AUTO -> openAuto(settings);
        };
    }

    private static Verbs openRequired(ProviderKind kind, List<? extends ProviderSettings> settings) {
        VerbsProvider provider = find(kind.providerName()).orElseThrow(() -> new VerbsException("ibv_get_device_list",
                Errno.ENOSYS, "no '" + kind.providerName() + "' provider on the class path",
                "add rdma-verbs to the class path (it carries both providers)"));
        ProviderAvailability availability = provider.availability();
        if (!availability.available()) {
            throw new VerbsException("ibv_get_device_list", Errno.ENODEV,
                    "the " + kind.providerName() + " provider cannot run here: " + availability.reason(),
                    "use provider 'auto' to fall back to the simulated fabric, or install rdma-core and an RDMA device");
        }
        String reason = "provider '" + kind.providerName() + "' was requested; " + availability.reason();
        LOG.log(System.Logger.Level.INFO, reason);
        return new Verbs(provider.name(), kind, reason, provider.open(settings));
    }

    private static Verbs openAuto(List<? extends ProviderSettings> settings) {
        Optional<VerbsProvider> nativeProvider = find(ProviderKind.NATIVE.providerName());
        String nativeState;
        if (nativeProvider.isPresent()) {
            VerbsProvider provider = nativeProvider.get();
            ProviderAvailability availability = provider.availability();
            if (availability.available() && availability.deviceCount() > 0) {
                String reason = "auto: native provider selected: " + availability.reason();
                LOG.log(System.Logger.Level.INFO, reason);
                return new Verbs(provider.name(), ProviderKind.AUTO, reason, provider.open(settings));
            }
            nativeState = availability.reason();
        } else {
            nativeState = "no native provider on the class path";
        }
        VerbsProvider simulated = find(ProviderKind.SIMULATED.providerName()).orElseThrow(() -> new VerbsException(
                "ibv_get_device_list", Errno.ENODEV, "no native device (" + nativeState + ") and no simulated provider",
                "add rdma-verbs to the class path"));
        String reason = "auto: simulated fabric selected because the native provider is unusable: " + nativeState;
        // A warning, not a note: from here on nothing goes over a network, and an application that
        // should have reached its peers over RDMA only talks to itself.
        LOG.log(System.Logger.Level.WARNING, reason + "; open provider 'native' where an RDMA device must serve, so"
                + " that its absence fails instead");
        return new Verbs(simulated.name(), ProviderKind.AUTO, reason, simulated.open(settings));
    }

    private static Optional<VerbsProvider> find(String name) {
        for (VerbsProvider provider : ServiceLoader.load(VerbsProvider.class, Verbs.class.getClassLoader())) {
            if (provider.name().equals(name)) {
                return Optional.of(provider);
            }
        }
        return Optional.empty();
    }

    public String providerName() {
        return providerName;
    }

    /**
     * The kind the application asked for: with {@link ProviderKind#AUTO}, a {@link #providerName()}
     * of {@code simulated} means the native provider was passed over ({@link #selectionReason()} says why).
     */
    public ProviderKind requestedKind() {
        return requested;
    }

    /**
     * Whether {@link ProviderKind#AUTO} fell back to the simulated fabric because the native provider
     * could not serve (logged at WARNING; {@link #selectionReason()} says why).
     */
    public boolean fellBackToSimulated() {
        return requested == ProviderKind.AUTO && providerName.equals(ProviderKind.SIMULATED.providerName());
    }

    /** Why this provider serves the application, as logged at selection. */
    public String selectionReason() {
        return selectionReason;
    }

    /** @throws ResourceClosedException when this list is closed */
    public List<Device> devices() {
        ensureOpen();
        return devices;
    }

    /**
     * The device called {@code name}.
     *
     * @throws VerbsException ENODEV, naming the devices there are, when none is called {@code name}
     * @throws ResourceClosedException when this list is closed
     */
    public Device device(String name) {
        ensureOpen();
        for (Device device : devices) {
            if (device.name().equals(name)) {
                return device;
            }
        }
        throw new VerbsException("ibv_get_device_list", Errno.ENODEV, "no RDMA device named '" + name + "'",
                "devices present: " + devices.stream().map(Device::name).toList());
    }

    /**
     * The provider's count of objects created and not destroyed, per kind: all zero once
     * everything is closed. A provider sees a memory pool as the one region it registers, so
     * pools count under {@link ResourceKind#MEMORY_REGION}; {@link DeviceContext#openResources()}
     * is the API's own count, by API kind.
     */
    public Map<ResourceKind, Long> liveObjects() {
        return session.liveObjects();
    }

    /**
     * A provider-specific facility of {@code type}, such as the simulated fabric's
     * {@code FabricControl} (fault injection and port control); empty when the provider
     * serving this list offers none.
     */
    public <T> Optional<T> extension(Class<T> type) {
        return session.extension(type);
    }

    /**
     * Opens {@code handle} for {@code device}, refusing before the provider opens anything when
     * this list is closed, so that no context is opened only to be leaked.
     */
    DeviceContext open(Device device, DeviceHandle handle) {
        Lock shared = openLock.readLock();
        shared.lock();
        try {
            ensureOpen();
            ContextHandle opened = handle.open();
            DeviceContext context;
            try {
                context = new DeviceContext(device, opened);
            } catch (RuntimeException | Error e) {
                // The context never became a resource (its async events did not start): close it here, or it leaks.
                try {
                    opened.close();
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            }
            openContexts.add(context);
            return context;
        } finally {
            shared.unlock();
        }
    }

    void closed(DeviceContext context) {
        openContexts.remove(context);
    }

    private void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException("device list of provider '" + providerName + "'");
        }
    }

    /**
     * Closes every context opened from this list ({@code ibv_close_device}), each cascading to
     * its resources ({@link DeviceContext}), then frees the list. A context that fails to close
     * does not stop the others or the freeing; idempotent. From its start, {@link Device#open()}
     * on a device of this list is refused; an open already under way finishes first, and its
     * context is closed with the others.
     *
     * @throws VerbsException the first failure of a context's close ({@link VerbsResource#close()}),
     *         after the list is freed all the same
     */
    @Override
    public void close() {
        Lock exclusive = openLock.writeLock();
        exclusive.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            exclusive.unlock();
        }
        RuntimeException failure = null;
        for (DeviceContext context : openContexts) {
            try {
                context.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        session.close();
        if (failure != null) {
            throw failure;
        }
    }
}
