package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.ProviderSettings;

import java.util.Objects;

/**
 * Puts a simulated session on the fabric called {@code name}, shared inside the JVM: sessions
 * opened with the same name join one fabric, each as a host of its own, and reach one another
 * over it as machines on one network do (rdma_cm connections, RC and UC QPs, UD datagrams,
 * raw Ethernet frames). Without it a session has a private fabric, on which it is the only host.
 * Passed among the settings of {@link io.rdma.verbs.api.Verbs#open(io.rdma.verbs.api.ProviderKind, java.util.List)};
 * the native provider ignores it.
 *
 * <p>Every host has its own devices, so every session may declare the same device names: the
 * addresses tell the hosts apart. A host's number is the lowest one free on the fabric, from 1,
 * and is the last octet of the IPv4 address in each of its ports' RoCE GIDs
 * ({@code 10.<device>.<port>.<host>}); its GUIDs, link-local GIDs and LIDs differ from every other
 * host's too. A session's {@link io.rdma.verbs.api.Verbs#liveObjects()} counts its own objects only,
 * and its {@link FabricControl} acts on its own devices. The fabric lives while a host is on it:
 * once the last session closes, the next one with that name starts a fresh fabric.
 *
 * @param name the fabric's name; not blank
 */
public record SharedFabric(String name) implements ProviderSettings {

    public SharedFabric {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a shared simulated fabric needs a name that is not blank");
        }
    }
}
