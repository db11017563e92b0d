package io.rdma.verbs.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The message contents of {@code ibv_rc_pingpong -c} ({@code validate_buf} in {@code rc_pingpong.c}
 * v44): {@code pp_init_ctx} fills the buffer with {@code 0x7b}; the client then sets the first
 * byte of every page to {@code i / page_size % sizeof(char)}, which is 0 for every page; the
 * server, after the last exchange, prints {@code invalid data in page N} for a page whose first
 * byte is not 0. Each C side sends from the buffer it receives into, so the client's pattern is
 * what travels in both directions.
 */
final class ValidateBufferPattern {

    /** {@code memset(ctx->buf, 0x7b, size)}. */
    private static final byte FILL = 0x7b;
    /** What the client writes at each page start. */
    private static final byte PAGE_MARK = 0;
    /** {@code sysconf(_SC_PAGESIZE)} of the C side: 4 KiB on x86-64, where the Soft-RoCE guest runs. */
    private static final int PAGE_SIZE = 4096;

    private ValidateBufferPattern() {
    }

    static byte expectedAt(long offset) {
        return offset % PAGE_SIZE == 0 ? PAGE_MARK : FILL;
    }

    static void fill(MemorySegment message) {
        for (long offset = 0; offset < message.byteSize(); offset++) {
            message.set(ValueLayout.JAVA_BYTE, offset, expectedAt(offset));
        }
    }

    /** The offset of the first byte of {@code message} that differs from the pattern, or -1 when none does. */
    static long firstMismatch(MemorySegment message) {
        for (long offset = 0; offset < message.byteSize(); offset++) {
            if (message.get(ValueLayout.JAVA_BYTE, offset) != expectedAt(offset)) {
                return offset;
            }
        }
        return -1;
    }
}
