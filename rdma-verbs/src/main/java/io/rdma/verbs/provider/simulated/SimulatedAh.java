package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.spi.AhHandle;

/** An address handle: the address vector UD sends go to. */
final class SimulatedAh implements AhHandle {

    private final SimulatedPd pd;
    private final AddressVector addressVector;

    SimulatedAh(SimulatedPd pd, AddressVector addressVector) {
        this.pd = pd;
        this.addressVector = addressVector;
    }

    SimulatedPd pd() {
        return pd;
    }

    AddressVector addressVector() {
        return addressVector;
    }

    @Override
    public void destroy() {
        pd.device().release(ResourceKind.ADDRESS_HANDLE);
    }
}
