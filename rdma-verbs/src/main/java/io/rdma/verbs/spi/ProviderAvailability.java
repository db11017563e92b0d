package io.rdma.verbs.spi;

/** Whether a provider can serve this process, with a reason that is logged when selection passes it over. */
public record ProviderAvailability(boolean available, int deviceCount, String reason) {

    public static ProviderAvailability available(int deviceCount, String reason) {
        return new ProviderAvailability(true, deviceCount, reason);
    }

    public static ProviderAvailability unavailable(String reason) {
        return new ProviderAvailability(false, 0, reason);
    }
}
