package io.rdma.boot.autoconfigure.discovery;

import java.util.Map;

import org.springframework.cloud.client.serviceregistry.Registration;

/**
 * Where the metadata a registration will be registered with can still be written when Spring
 * Cloud announces it ({@code InstancePreRegisteredEvent}): the registration's own metadata for
 * most registries; Spring Cloud Zookeeper's discovery properties' map for Zookeeper, whose
 * registration is built only as it registers. A registry whose metadata lives elsewhere gets a
 * bean of this type.
 */
@FunctionalInterface
public interface RegistrationMetadata {

    /** The writable metadata {@code registration} is registered with. */
    Map<String, String> of(Registration registration);
}
