package io.rdma.boot.autoconfigure.preflight;

import org.jspecify.annotations.Nullable;

/**
 * A port the configuration uses, with the GID index it configures there.
 *
 * @param gidIndex null when not configured: the preflight chooses one
 * @param property the {@code gid-index} property that sets (or would set) it
 */
public record GidUse(int port, @Nullable Integer gidIndex, String property) {
}
