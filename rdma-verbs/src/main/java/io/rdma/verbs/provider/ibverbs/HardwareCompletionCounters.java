package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.util.Optional;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The completion counter verbs of rdma-core 65 (symbol version IBVERBS_1.18), bound by
 * optional symbol lookup because older libraries (Debian 12 ships 44) lack them, and so are
 * their structs, declared here from that release's ABI, which differs from the man pages
 * (the counter itself, {@code struct ibv_comp_cntr { context; handle; }}, is only passed around):
 * {@code struct ibv_comp_cntr_init_attr { uint32_t comp_mask; enum ibv_comp_cntr_type type; uint32_t flags; }},
 * {@code struct ibv_comp_cntr_caps { uint64_t max_value; uint32_t max_counters; uint32_t supported_qp_attach_ops; }}
 * and {@code struct ibv_qp_attach_comp_cntr_attr { uint32_t comp_mask; uint32_t op_mask; }}.
 */
final class HardwareCompletionCounters {

    static final StructLayout INIT_ATTR = MemoryLayout.structLayout(JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("type"), JAVA_INT.withName("flags")).withName("ibv_comp_cntr_init_attr");
    static final StructLayout CAPS = MemoryLayout.structLayout(JAVA_LONG.withName("max_value"),
            JAVA_INT.withName("max_counters"), JAVA_INT.withName("supported_qp_attach_ops"))
            .withName("ibv_comp_cntr_caps");
    static final StructLayout ATTACH_ATTR = MemoryLayout.structLayout(JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("op_mask")).withName("ibv_qp_attach_comp_cntr_attr");

    /** {@code IBV_COMP_CNTR_TYPE_WRS}: count work requests (the other type counts bytes). */
    static final int TYPE_WRS = 0;
    static final long INIT_ATTR_TYPE = INIT_ATTR.byteOffset(MemoryLayout.PathElement.groupElement("type"));
    static final long ATTACH_ATTR_OP_MASK = ATTACH_ATTR.byteOffset(MemoryLayout.PathElement.groupElement("op_mask"));

    final CheckedCall queryCaps;
    final CheckedCall create;
    final CheckedCall destroy;
    final CheckedCall read;
    final CheckedCall readErrors;
    final CheckedCall attach;
    /** Setting and incrementing from software are optional in the library; absent, they are EOPNOTSUPP. */
    final Optional<CheckedCall> set;
    final Optional<CheckedCall> setErrors;
    final Optional<CheckedCall> increment;
    final Optional<CheckedCall> incrementErrors;

    private HardwareCompletionCounters(MemorySegment queryCaps, MemorySegment create, MemorySegment destroy,
                                       MemorySegment read, MemorySegment readErrors, MemorySegment attach) {
        this.queryCaps = CheckedCall.bind("ibv_query_comp_cntr_caps", queryCaps,
                NativeDowncalls.QUERY_COMP_CNTR_CAPS);
        this.create = CheckedCall.bind("ibv_create_comp_cntr", create, NativeDowncalls.CREATE_COMP_CNTR);
        this.destroy = CheckedCall.bind("ibv_destroy_comp_cntr", destroy, NativeDowncalls.DESTROY_COMP_CNTR);
        this.read = CheckedCall.bind("ibv_read_comp_cntr", read, NativeDowncalls.READ_COMP_CNTR);
        this.readErrors = CheckedCall.bind("ibv_read_err_comp_cntr", readErrors, NativeDowncalls.READ_COMP_CNTR);
        this.attach = CheckedCall.bind("ibv_qp_attach_comp_cntr", attach, NativeDowncalls.QP_ATTACH_COMP_CNTR);
        this.set = valueCall("ibv_set_comp_cntr");
        this.setErrors = valueCall("ibv_set_err_comp_cntr");
        this.increment = valueCall("ibv_inc_comp_cntr");
        this.incrementErrors = valueCall("ibv_inc_err_comp_cntr");
    }

    private static Optional<CheckedCall> valueCall(String name) {
        return NativeLibraries.optionalVerbsSymbol(name).map(address -> CheckedCall.bind(name, address,
                NativeDowncalls.SET_COMP_CNTR));
    }

    /** The bound verbs, or empty when this libibverbs predates them. */
    static Optional<HardwareCompletionCounters> bind() {
        Optional<MemorySegment> queryCaps = NativeLibraries.optionalVerbsSymbol("_ibv_query_comp_cntr_caps");
        Optional<MemorySegment> create = NativeLibraries.optionalVerbsSymbol("ibv_create_comp_cntr");
        Optional<MemorySegment> destroy = NativeLibraries.optionalVerbsSymbol("ibv_destroy_comp_cntr");
        Optional<MemorySegment> read = NativeLibraries.optionalVerbsSymbol("ibv_read_comp_cntr");
        Optional<MemorySegment> readErrors = NativeLibraries.optionalVerbsSymbol("ibv_read_err_comp_cntr");
        Optional<MemorySegment> attach = NativeLibraries.optionalVerbsSymbol("ibv_qp_attach_comp_cntr");
        if (queryCaps.isEmpty() || create.isEmpty() || destroy.isEmpty() || read.isEmpty() || readErrors.isEmpty()
                || attach.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new HardwareCompletionCounters(queryCaps.get(), create.get(), destroy.get(), read.get(),
                readErrors.get(), attach.get()));
    }

    /** The device's limits, or empty when it has no completion counters (EOPNOTSUPP or zero counters). */
    Optional<Caps> query(MemorySegment context) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment caps = arena.allocate(CAPS);
            int errno = queryCaps.errnoOf(context, caps, CAPS.byteSize());
            if (errno == Errno.EOPNOTSUPP.code() || errno == Errno.ENOSYS.code()) {
                return Optional.empty();
            }
            if (errno != 0) {
                throw NativeErrors.failure("ibv_query_comp_cntr_caps", errno, null);
            }
            int maxCounters = caps.get(JAVA_INT, CAPS.byteOffset(MemoryLayout.PathElement.groupElement("max_counters")));
            if (maxCounters == 0) {
                return Optional.empty();
            }
            return Optional.of(new Caps(caps.get(JAVA_LONG, 0), maxCounters, CompletionCounterOp.fromMask(
                    caps.get(JAVA_INT, CAPS.byteOffset(MemoryLayout.PathElement.groupElement(
                            "supported_qp_attach_ops"))))));
        }
    }

    /** {@code struct ibv_comp_cntr_caps}. */
    record Caps(long maxValue, int maxCounters, Set<CompletionCounterOp> supportedOps) {
    }

    static VerbsException unsupported(String verb) {
        return new VerbsException(verb, Errno.EOPNOTSUPP, "this libibverbs has ibv_create_comp_cntr but not " + verb,
                "read the counter instead, or upgrade rdma-core");
    }

    static long readWord(CheckedCall call, MemorySegment counter) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(ValueLayout.JAVA_LONG);
            call.status(null, counter, value);
            return value.get(ValueLayout.JAVA_LONG, 0);
        }
    }
}
