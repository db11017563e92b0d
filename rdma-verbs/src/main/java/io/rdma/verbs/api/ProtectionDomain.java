package io.rdma.verbs.api;

import io.rdma.verbs.spi.PdHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code struct ibv_pd}: the scope within which memory, QPs, SRQs and AHs may work together.
 *
 * <p>Closing it first closes its memory regions and pools, QPs (with their flows and
 * connections), SRQs and AHs, in libibverbs' order; {@code ibv_dealloc_pd} itself refuses a PD
 * with any of them alive (EBUSY, verbs manual §3.2).
 *
 * <p>Thread-safe: creations are serialized with every other creation and close of the context.
 */
public final class ProtectionDomain extends VerbsResource {

    /** Registrations are page aligned by default (verbs manual §12.4). */
    public static final long PAGE_SIZE = 4096;

    private final PdHandle handle;

    ProtectionDomain(DeviceContext context, PdHandle handle) {
        super(ResourceKind.PROTECTION_DOMAIN, context, handle, List.of(context));
        this.handle = handle;
    }

    /**
     * Bytes registered with this PD now: the lengths of its open memory regions and pools, which
     * is what the device pins and counts against the locked-memory limit. Walks the PD's
     * dependents under the context's lifecycle lock, so it is for monitoring, not the data path.
     */
    public long registeredBytes() {
        long bytes = 0;
        for (VerbsResource dependent : dependents()) {
            if (dependent instanceof MemoryRegion region) {
                bytes += region.length();
            } else if (dependent instanceof MemoryPool pool) {
                bytes += (long) pool.bufferSize() * pool.capacity();
            }
        }
        return bytes;
    }

    /**
     * {@code ibv_reg_mr} over memory the caller owns and keeps alive at least until the region is
     * closed.
     *
     * @throws VerbsException ENOMEM beyond the locked-memory limit ({@code ulimit -l}) or the device's
     *         {@code max_mr}; EINVAL for a length above {@code max_mr_size}, memory that is not native,
     *         or remote write or atomic access without local write; EFAULT for an address that is not
     *         mapped (verbs manual §4.1)
     * @throws ResourceClosedException when the PD or its context is closed
     */
    public MemoryRegion registerMemory(MemorySegment memory, Set<AccessFlag> access) {
        return context().create(() -> {
            ensureOpen();
            return new MemoryRegion(this, memory, access, null,
                    handle.registerMemory(memory, AccessFlag.mask(access)));
        });
    }

    /**
     * Allocates {@code bytes} of page-aligned native memory and registers it; closing the region frees it.
     *
     * @throws VerbsException as {@link #registerMemory}
     * @throws IllegalArgumentException when {@code bytes} is negative
     * @throws ResourceClosedException when the PD or its context is closed
     */
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
     *
     * @throws VerbsException EINVAL when {@code bufferSize} or {@code count} is not positive;
     *         otherwise as {@link #registerMemory}
     * @throws ResourceClosedException when the PD or its context is closed
     */
    public MemoryPool createMemoryPool(int bufferSize, int count, Set<AccessFlag> access) {
        return context().create(() -> {
            ensureOpen();
            return MemoryPool.allocate(this, handle, bufferSize, count, access);
        });
    }

    /**
     * {@code ibv_create_qp}. The granted capabilities are on the returned QP.
     *
     * @throws VerbsException EINVAL when a CQ or the SRQ belongs to another context, a capability is
     *         zero or above the device's limit, or a RAW_PACKET QP is given an SRQ; ENOMEM when the
     *         device holds its {@code max_qp} QPs; the errno {@code ibv_create_qp} fails with
     * @throws ResourceClosedException when the PD, its context, a CQ or the SRQ is closed
     */
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

    /**
     * {@code ibv_create_srq}: {@code limit} above zero arms {@code IBV_EVENT_SRQ_LIMIT_REACHED}.
     *
     * @throws VerbsException EINVAL when {@code max_wr} or {@code max_sge} is above the device's
     *         limit or {@code limit} is outside 0 to {@code max_wr}; ENOMEM when the device holds its
     *         {@code max_srq} SRQs; the errno {@code ibv_create_srq} fails with
     * @throws ResourceClosedException when the PD or its context is closed
     */
    public SharedReceiveQueue createSharedReceiveQueue(SharedReceiveQueueAttributes attributes) {
        return context().create(() -> {
            ensureOpen();
            return new SharedReceiveQueue(this, handle.createSharedReceiveQueue(attributes));
        });
    }

    /**
     * {@code ibv_create_ah}: the path to a remote port for UD sends.
     *
     * @throws VerbsException EINVAL when the port does not exist, the source GID index is outside
     *         its table, or the port is Ethernet (RoCE) and the vector has no GRH; ENOMEM when the
     *         device holds its {@code max_ah} AHs; the errno {@code ibv_create_ah} fails with
     * @throws ResourceClosedException when the PD or its context is closed
     */
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
