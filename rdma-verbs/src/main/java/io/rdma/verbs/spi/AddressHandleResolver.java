package io.rdma.verbs.spi;

import io.rdma.verbs.api.AddressHandle;

/**
 * How a provider finds its own object behind the {@link AddressHandle} a UD send names: the API
 * hands one to {@link QpHandle#postSend}, so the handle never shows on the public API.
 */
@FunctionalInterface
public interface AddressHandleResolver {

    /**
     * The provider object behind {@code ah}.
     *
     * @throws io.rdma.verbs.api.ResourceClosedException when {@code ah} is closed
     */
    AhHandle resolve(AddressHandle ah);
}
