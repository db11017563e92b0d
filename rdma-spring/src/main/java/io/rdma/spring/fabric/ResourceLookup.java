package io.rdma.spring.fabric;

import io.rdma.verbs.api.Verbs;

/** The beans a resource is created from: the provider's device list and the resources declared before it. */
public interface ResourceLookup {

    Verbs verbs();

    <T> T resource(String name, Class<T> type);
}
