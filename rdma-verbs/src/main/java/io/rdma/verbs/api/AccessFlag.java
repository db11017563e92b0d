package io.rdma.verbs.api;

import java.util.Set;

/**
 * Memory region access flags (verbs manual §4.1), with their {@code IBV_ACCESS_*} bit values.
 *
 * <p>Immutable, so thread-safe.
 */
public enum AccessFlag {
    LOCAL_WRITE(1),
    REMOTE_WRITE(1 << 1),
    REMOTE_READ(1 << 2),
    REMOTE_ATOMIC(1 << 3),
    MW_BIND(1 << 4),
    ZERO_BASED(1 << 5),
    ON_DEMAND(1 << 6),
    HUGETLB(1 << 7),
    RELAXED_ORDERING(1 << 20);

    private final int bit;

    AccessFlag(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }

    public static int mask(Set<AccessFlag> flags) {
        int mask = 0;
        for (AccessFlag flag : flags) {
            mask |= flag.bit;
        }
        return mask;
    }

    public static Set<AccessFlag> fromMask(int mask) {
        java.util.EnumSet<AccessFlag> flags = java.util.EnumSet.noneOf(AccessFlag.class);
        for (AccessFlag flag : values()) {
            if ((mask & flag.bit) != 0) {
                flags.add(flag);
            }
        }
        return flags;
    }

    public static boolean isSet(int mask, AccessFlag flag) {
        return (mask & flag.bit) != 0;
    }
}
