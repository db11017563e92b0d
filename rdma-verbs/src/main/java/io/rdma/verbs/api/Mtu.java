package io.rdma.verbs.api;

/**
 * {@code enum ibv_mtu}: the enum value is 1 for 256 bytes up to 5 for 4096.
 *
 * <p>Immutable, so thread-safe.
 */
public enum Mtu {
    MTU_256(1, 256), MTU_512(2, 512), MTU_1024(3, 1024), MTU_2048(4, 2048), MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    public int value() {
        return value;
    }

    public int bytes() {
        return bytes;
    }

    /** @throws IllegalArgumentException when {@code value} is not an {@code ibv_mtu} value */
    public static Mtu of(int value) {
        for (Mtu mtu : values()) {
            if (mtu.value == value) {
                return mtu;
            }
        }
        throw new IllegalArgumentException("not an ibv_mtu value: " + value);
    }

    public static Mtu ofBytes(int bytes) {
        for (Mtu mtu : values()) {
            if (mtu.bytes == bytes) {
                return mtu;
            }
        }
        throw new IllegalArgumentException("path MTU must be 256, 512, 1024, 2048 or 4096 bytes, not " + bytes);
    }

    public Mtu min(Mtu other) {
        return value <= other.value ? this : other;
    }
}
