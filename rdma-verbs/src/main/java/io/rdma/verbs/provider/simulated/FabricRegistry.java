package io.rdma.verbs.provider.simulated;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a session finds its fabric: a shared fabric of the JVM by name ({@link SharedFabric}),
 * alive from its first host joining until its last one leaves, or a private fabric of its own.
 * Joining and leaving a shared fabric take one JVM-wide lock, so that no session joins a fabric
 * whose last host is just leaving.
 */
final class FabricRegistry {

    private static final Map<String, SimulatedFabric> SHARED = new HashMap<>();

    private FabricRegistry() {
    }

    /** A new host with the devices {@code specs} describe, on the fabric {@code shared} names, or on a private one. */
    static SimulatedHost join(Optional<SharedFabric> shared, List<DeviceSpec> specs) {
        SimulatedFabric fabric;
        int number;
        synchronized (SHARED) {
            fabric = shared.map(named -> SHARED.computeIfAbsent(named.name(),
                    name -> new SimulatedFabric("the shared simulated fabric '" + name + "'")))
                    .orElseGet(() -> new SimulatedFabric("the session's private simulated fabric"));
            number = fabric.admitHost();
        }
        try {
            return new SimulatedHost(fabric, number, specs);
        } catch (RuntimeException e) {
            leave(fabric, number);
            throw e;
        }
    }

    /** Host {@code number} leaves {@code fabric}; the last host to leave ends it. */
    static void leave(SimulatedFabric fabric, int number) {
        synchronized (SHARED) {
            if (!fabric.releaseHost(number)) {
                return;
            }
            SHARED.values().remove(fabric);
        }
        fabric.shutdown();
    }
}
