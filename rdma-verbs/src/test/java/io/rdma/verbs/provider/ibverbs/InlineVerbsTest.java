package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.ibverbs.generated.ibv_context;
import io.rdma.verbs.provider.ibverbs.generated.verbs_context;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code verbs_get_ctx_op} as {@link InlineVerbs} applies it, on a {@code verbs_context} built
 * in memory: the op is used only when {@code abi_compat} marks the context extended, its
 * {@code sz} reaches the op, and the pointer is set; otherwise the verb is EOPNOTSUPP.
 */
class InlineVerbsTest {

    /** {@link InlineVerbs} binds {@code ibv_query_port} and {@code ibv_query_device} from libibverbs as it loads. */
    @BeforeAll
    static void libibverbsLoads() {
        assumeTrue(NativeLibraries.missing().isEmpty(),
                () -> "rdma-core is not installed: " + NativeLibraries.missing().orElseThrow());
    }

    private static final long CONTEXT_OFFSET = verbs_context.layout()
            .byteOffset(MemoryLayout.PathElement.groupElement("context"));

    private static MemorySegment fakeContext(Arena arena, boolean extended, long sz, long createCountersPointer) {
        MemorySegment vctx = arena.allocate(verbs_context.layout());
        verbs_context.sz(vctx, sz);
        vctx.set(ValueLayout.JAVA_LONG, offsetOf("create_counters"), createCountersPointer);
        MemorySegment context = vctx.asSlice(CONTEXT_OFFSET, ibv_context.sizeof());
        ibv_context.abi_compat(context, MemorySegment.ofAddress(extended ? -1L : 0L));
        return context;
    }

    private static long offsetOf(String op) {
        return verbs_context.layout().byteOffset(MemoryLayout.PathElement.groupElement(op));
    }

    @Test
    void anExtendedContextWhoseSizeCoversTheOpYieldsIt() {
        try (Arena arena = Arena.ofConfined()) {
            InlineVerbs verbs = new InlineVerbs(fakeContext(arena, true, verbs_context.sizeof(), 0x1234));
            assertThat(verbs.isExtended()).isTrue();
            assertThat(verbs.extendedOp("create_counters").address()).isEqualTo(0x1234);
        }
    }

    @Test
    void aSizeThatStopsShortOfTheOpHidesIt() {
        long reachesJustPast = verbs_context.sizeof() - offsetOf("create_counters");
        try (Arena arena = Arena.ofConfined()) {
            assertThat(new InlineVerbs(fakeContext(arena, true, reachesJustPast, 0x1234))
                    .extendedOp("create_counters").address()).isEqualTo(0x1234);
            InlineVerbs tooSmall = new InlineVerbs(fakeContext(arena, true, reachesJustPast - 1, 0x1234));
            assertThat(tooSmall.extendedOp("create_counters").address()).isZero();
            assertThatThrownBy(() -> tooSmall.createCounters(MemorySegment.NULL, "probe"))
                    .isInstanceOfSatisfying(VerbsException.class, e -> {
                        assertThat(e.verb()).isEqualTo("ibv_create_counters");
                        assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP);
                    });
        }
    }

    @Test
    void aLegacyContextOrAnUnsetOpIsNotSupported() {
        try (Arena arena = Arena.ofConfined()) {
            InlineVerbs legacy = new InlineVerbs(fakeContext(arena, false, verbs_context.sizeof(), 0x1234));
            assertThat(legacy.isExtended()).isFalse();
            assertThat(legacy.extendedOp("create_counters").address()).isZero();
            assertThat(new InlineVerbs(fakeContext(arena, true, verbs_context.sizeof(), 0))
                    .extendedOp("create_counters").address()).isZero();
        }
    }
}
