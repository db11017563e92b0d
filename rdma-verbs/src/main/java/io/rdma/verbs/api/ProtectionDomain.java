package io.rdma.verbs.api;

import io.rdma.verbs.spi.PdHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** {@code struct ibv_pd}: the scope within which memory, QPs, SRQs and AHs may work together. */
public final class ProtectionDomain extends VerbsResource {

    /** Registrations are page aligned by default (verbs manual §12.4). */
    public static final long PAGE_SIZE = 4096;

    private final PdHandle handle;

    ProtectionDomain(DeviceContext context, PdHandle handle) {
        super(ResourceKind.PROTECTION_DOMAIN, context, handle, List.of(context));
        this.handle = handle;
    }

    /**
     * {@code ibv_reg_mr} over memory the caller owns and keeps alive at least until the region is
     * closed.
     */
    public MemoryRegion registerMemory(MemorySegment memory, Set<AccessFlag> access) {
        return context().create(() -> {
            ensureOpen();
            return new MemoryRegion(this, memory, access, null,
                    handle.registerMemory(memory, AccessFlag.mask(access)));
        });
    }

    /** Allocates {@code bytes} of page-aligned native memory and registers it; closing the region frees it. */
    public MemoryRegion allocateMemory(long bytes, Set<AccessFlag> access) {
        return context().create(() -> {
            ensureOpen();
            Arena arena = Arena.ofShared();
            try {
                MemorySegment memory = arena.allocate(bytes, PAGE_SIZE);
                return new MemoryRegion(this, memory, access, arena,
                        handle.registerMemory(memory, AccessFlag.mask(access)));
            } catch (RuntimeException e) {
                arena.close();
                throw e;
            }
        });
    }

    /**
     * A pool of {@code count} buffers of {@code bufferSize} bytes, sliced from one registered,
     * page-aligned region: leases are lock-free and allocate nothing.
     */
    public MemoryPool createMemoryPool(int bufferSize, int count, Set<AccessFlag> access) {
        return context().create(() -> {
            ensureOpen();
            return MemoryPool.allocate(this, handle, bufferSize, count, access);
        });
    }

    /** {@code ibv_create_qp}. The granted capabilities are on the returned QP. */
    public QueuePair createQueuePair(QueuePairOptions options) {
        return context().create(() -> {
            ensureOpen();
            List<VerbsResource> parents = new ArrayList<>(List.of(this, options.sendCq(), options.recvCq()));
            if (options.srq() != null) {
                parents.add(options.srq());
            }
            for (VerbsResource parent : parents) {
                parent.ensureOpen();
                if (parent.context() != context()) {
                    throw new VerbsException("ibv_create_qp", Errno.EINVAL,
                            parent + " belongs to another device context", null);
                }
            }
            return new QueuePair(this, options, parents, handle.createQueuePair(options.type(),
                    options.sendCq().cqHandle(), options.recvCq().cqHandle(),
                    options.srq() == null ? null : options.srq().srqHandle(), options.capabilities(),
                    options.signalAll()));
        });
    }

    /** {@code ibv_create_srq}: {@code limit} above zero arms {@code IBV_EVENT_SRQ_LIMIT_REACHED}. */
    public SharedReceiveQueue createSharedReceiveQueue(SharedReceiveQueueAttributes attributes) {
        return context().create(() -> {
            ensureOpen();
            return new SharedReceiveQueue(this, handle.createSharedReceiveQueue(attributes));
        });
    }

    /** {@code ibv_create_ah}: the path to a remote port for UD sends. */
    public AddressHandle createAddressHandle(AddressVector addressVector) {
        return context().create(() -> {
            ensureOpen();
            return new AddressHandle(this, addressVector, handle.createAddressHandle(addressVector));
        });
    }


    @Override
    void destroyHandle() {
        handle.destroy();
    }

    @Override
    String describe() {
        return "protection domain on " + context().deviceName();
    }
}
