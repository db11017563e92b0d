package io.rdma.verbs.api;

/**
 * Settings meant for one provider, passed through {@link Verbs#open(ProviderKind, java.util.List)}:
 * the list may carry settings for every provider {@code auto} might choose, and a provider
 * ignores settings meant for another. The simulated fabric's {@code DeviceSpec} is one.
 *
 * <p>Read by the provider once, when the list is opened; the simulated fabric's {@code DeviceSpec} is an immutable record.
 */
public interface ProviderSettings {
}
