package io.rdma.verbs.api;

import java.util.Objects;

/**
 * A character device the verbs libraries open, e.g. {@code /dev/infiniband/uverbs0}, and this process's access to it.
 *
 * <p>Immutable, so thread-safe.
 */
public record DeviceNode(String path, DeviceNodeAccess access) {

    public DeviceNode {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(access, "access");
    }

    public boolean usable() {
        return access.usable();
    }
}
