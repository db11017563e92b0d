package io.rdma.verbs.api;

import io.rdma.verbs.spi.AhHandle;

import java.util.List;

/**
 * {@code struct ibv_ah} (verbs manual §9): a path to a remote port, named by UD sends.
 *
 * <p>Nothing depends on an AH, so closing it destroys only it; a later UD post naming it fails
 * with {@link ResourceClosedException}.
 *
 * <p>Thread-safe: immutable apart from its close.
 */
public final class AddressHandle extends VerbsResource {

    private final AddressVector addressVector;
    private final AhHandle handle;

    AddressHandle(ProtectionDomain pd, AddressVector addressVector, AhHandle handle) {
        super(ResourceKind.ADDRESS_HANDLE, pd.context(), handle, List.of(pd));
        this.addressVector = addressVector;
        this.handle = handle;
    }

    public AddressVector addressVector() {
        return addressVector;
    }

    /**
     * The provider object, for a provider resolving a UD send's destination through the
     * {@link io.rdma.verbs.spi.AddressHandleResolver} its queue pair passes; checks the AH is open.
     */
    AhHandle providerHandle() {
        ensureOpen();
        return handle;
    }

    @Override
    void destroyHandle() {
        handle.destroy();
    }

    @Override
    String describe() {
        GlobalRoute route = addressVector.globalRoute();
        return "address handle to " + (route != null ? route.destinationGid()
                : "LID " + addressVector.destinationLid()) + " on " + context().deviceName();
    }
}
