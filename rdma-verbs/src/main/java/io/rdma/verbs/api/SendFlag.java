package io.rdma.verbs.api;

/** {@code enum ibv_send_flags} bits (verbs manual §7.1). */
public final class SendFlag {
    public static final int FENCE = 1;
    public static final int SIGNALED = 1 << 1;
    public static final int SOLICITED = 1 << 2;
    public static final int INLINE = 1 << 3;
    public static final int IP_CSUM = 1 << 4;

    private SendFlag() {
    }
}
