package io.rdma.spring.resource;

import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsResource;

import java.util.List;

/**
 * A resource the configuration declares, as the bean it becomes: its name (the bean name),
 * kind, device, declaring property, the beans it depends on (so Spring destroys it before
 * them), and how to create it.
 */
public record DeclaredResource(String name, ResourceKind kind, Class<? extends VerbsResource> type, String device,
                               String property, List<String> dependsOn, Creator creator) {

    public DeclaredResource {
        dependsOn = List.copyOf(dependsOn);
    }

    /** Creates the resource from the beans it depends on. */
    @FunctionalInterface
    public interface Creator {
        VerbsResource create(ResourceLookup lookup);
    }
}
