package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.provider.ibverbs.generated.ibv_context;
import io.rdma.verbs.provider.ibverbs.generated.ibv_context_ops;
import io.rdma.verbs.provider.ibverbs.generated.ibv_device_attr_ex;
import io.rdma.verbs.provider.ibverbs.generated.ibv_port_attr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.provider.ibverbs.generated.verbs_context;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;

import org.jspecify.annotations.Nullable;

/**
 * The {@code static inline} verbs of {@code infiniband/verbs.h}, which are no library symbols
 * and so not in the generated bindings: each reads the function pointer the header would and
 * calls it. Data-path pointers come from {@code ibv_context.ops}; extended verbs from
 * {@code struct verbs_context}, which sits right before {@code ibv_context} and is only
 * valid when {@code abi_compat} says so and its {@code sz} covers the op, exactly as
 * {@code verbs_get_ctx_op} checks. A missing op is EOPNOTSUPP, as in the header.
 *
 * <p>Post, poll and arm are short and never block, so they are bound {@code critical}
 * (no thread-state transition); every other verb here is bound normally.
 */
final class InlineVerbs {

    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code (void *) UINTPTR_MAX}. */
    private static final long ABI_IS_EXTENDED = -1L;

    /** post_send, post_recv and post_srq_recv. */
    private static final MethodHandle POST = NativeDowncalls.POST.handle();
    private static final MethodHandle POLL_CQ = NativeDowncalls.POLL_CQ.handle();
    private static final MethodHandle REQ_NOTIFY_CQ = NativeDowncalls.REQ_NOTIFY_CQ.handle();

    private static final CheckedCall QUERY_PORT = CheckedCall.bindPointer("ibv_query_port",
            NativeDowncalls.QUERY_PORT);
    private static final CheckedCall QUERY_PORT_COMPAT = CheckedCall.bind("ibv_query_port",
            rdma_h.ibv_query_port$address(), rdma_h.ibv_query_port$descriptor());
    private static final CheckedCall QUERY_DEVICE_EX = CheckedCall.bindPointer("ibv_query_device_ex",
            NativeDowncalls.QUERY_DEVICE_EX);
    private static final CheckedCall QUERY_DEVICE = CheckedCall.bind("ibv_query_device",
            rdma_h.ibv_query_device$address(), rdma_h.ibv_query_device$descriptor());
    private static final CheckedCall CREATE_CQ_EX = CheckedCall.bindPointer("ibv_create_cq_ex",
            NativeDowncalls.CREATE);
    private static final CheckedCall CREATE_FLOW = CheckedCall.bindPointer("ibv_create_flow",
            NativeDowncalls.CREATE);
    private static final CheckedCall DESTROY_FLOW = CheckedCall.bindPointer("ibv_destroy_flow",
            NativeDowncalls.DESTROY);
    private static final CheckedCall CREATE_COUNTERS = CheckedCall.bindPointer("ibv_create_counters",
            NativeDowncalls.CREATE);
    private static final CheckedCall DESTROY_COUNTERS = CheckedCall.bindPointer("ibv_destroy_counters",
            NativeDowncalls.DESTROY);
    private static final CheckedCall ATTACH_COUNTERS_POINT_FLOW = CheckedCall.bindPointer(
            "ibv_attach_counters_point_flow", NativeDowncalls.ATTACH_COUNTERS_POINT_FLOW);
    private static final CheckedCall READ_COUNTERS = CheckedCall.bindPointer("ibv_read_counters",
            NativeDowncalls.READ_COUNTERS);

    private static final long CONTEXT_OFFSET = verbs_context.layout()
            .byteOffset(MemoryLayout.PathElement.groupElement("context"));

    private final MemorySegment context;
    /** Null when the provider library predates the extended ABI. */
    private final @Nullable MemorySegment verbsContext;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    private final MemorySegment postSrqRecv;
    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;

    InlineVerbs(MemorySegment context) {
        this.context = context.reinterpret(ibv_context.sizeof());
        MemorySegment ops = ibv_context.ops(this.context);
        this.postSend = ibv_context_ops.post_send(ops);
        this.postRecv = ibv_context_ops.post_recv(ops);
        this.postSrqRecv = ibv_context_ops.post_srq_recv(ops);
        this.pollCq = ibv_context_ops.poll_cq(ops);
        this.reqNotifyCq = ibv_context_ops.req_notify_cq(ops);
        boolean extended = ibv_context.abi_compat(this.context).address() == ABI_IS_EXTENDED;
        this.verbsContext = extended
                ? MemorySegment.ofAddress(this.context.address() - CONTEXT_OFFSET).reinterpret(verbs_context.sizeof())
                : null;
    }

    /**
     * {@code verbs_get_ctx_op(ctx, op)}: the op's function pointer, or NULL when the context is
     * not extended, its {@code sz} does not reach the op, or the provider left it unset.
     */
    MemorySegment extendedOp(String op) {
        if (verbsContext == null) {
            return MemorySegment.NULL;
        }
        long offset = verbs_context.layout().byteOffset(MemoryLayout.PathElement.groupElement(op));
        long size = verbs_context.sz(verbsContext);
        if (size < verbs_context.sizeof() - offset) {
            return MemorySegment.NULL;
        }
        return verbsContext.get(ADDRESS, offset);
    }

    boolean isExtended() {
        return verbsContext != null;
    }

    // ---------------------------------------------------------------- data path (critical, never allocate)

    /** {@code ibv_post_send}: 0 or the errno, with {@code *bad_wr} set. */
    int postSend(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        return post(postSend, qp, wr, badWr);
    }

    /** {@code ibv_post_recv}. */
    int postRecv(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        return post(postRecv, qp, wr, badWr);
    }

    /** {@code ibv_post_srq_recv}. */
    int postSrqRecv(MemorySegment srq, MemorySegment wr, MemorySegment badWr) {
        return post(postSrqRecv, srq, wr, badWr);
    }

    private static int post(MemorySegment function, MemorySegment queue, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST.invokeExact(function, queue, wr, badWr);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code ibv_poll_cq}: completions written to {@code wc}, or a negative value on failure. */
    int pollCq(MemorySegment cq, int entries, MemorySegment wc) {
        try {
            return (int) POLL_CQ.invokeExact(pollCq, cq, entries, wc);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code ibv_req_notify_cq}: 0 or the errno. */
    int reqNotifyCq(MemorySegment cq, boolean solicitedOnly) {
        try {
            return (int) REQ_NOTIFY_CQ.invokeExact(reqNotifyCq, cq, solicitedOnly ? 1 : 0);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    // ---------------------------------------------------------------- control path

    /** The {@code ibv_query_port} macro: {@code verbs_context.query_port} with the struct size, else the compat symbol. */
    void queryPort(int port, MemorySegment portAttr) {
        MemorySegment op = extendedOp("query_port");
        String detail = "port " + port;
        if (op.address() == 0) {
            portAttr.fill((byte) 0);
            QUERY_PORT_COMPAT.status(detail, context, (byte) port, portAttr);
            return;
        }
        QUERY_PORT.status(detail, op, context, (byte) port, portAttr, ibv_port_attr.sizeof());
    }

    /** {@code ibv_query_device_ex} with no input, falling back to {@code ibv_query_device} as the header does. */
    void queryDeviceEx(MemorySegment attrEx) {
        MemorySegment op = extendedOp("query_device_ex");
        if (op.address() != 0) {
            int errno = QUERY_DEVICE_EX.errnoOf(op, context, MemorySegment.NULL, attrEx, ibv_device_attr_ex.sizeof());
            if (errno == 0) {
                return;
            }
            if (errno != Errno.EOPNOTSUPP.code() && errno != Errno.ENOSYS.code()) {
                throw NativeErrors.failure("ibv_query_device_ex", errno, null);
            }
        }
        attrEx.fill((byte) 0);
        QUERY_DEVICE.status(null, context, ibv_device_attr_ex.orig_attr(attrEx));
    }

    /** {@code ibv_create_cq_ex}. */
    MemorySegment createCqEx(MemorySegment initAttr, String detail) {
        return CREATE_CQ_EX.pointer(detail, requireOp("create_cq_ex", "ibv_create_cq_ex", detail), context, initAttr);
    }

    /** {@code ibv_create_flow}. */
    MemorySegment createFlow(MemorySegment qp, MemorySegment flowAttr, String detail) {
        return CREATE_FLOW.pointer(detail, requireOp("ibv_create_flow", "ibv_create_flow", detail), qp, flowAttr);
    }

    /** {@code ibv_destroy_flow}. */
    void destroyFlow(MemorySegment flow) {
        DESTROY_FLOW.status(null, requireOp("ibv_destroy_flow", "ibv_destroy_flow", null), flow);
    }

    /** {@code ibv_create_counters}. */
    MemorySegment createCounters(MemorySegment initAttr, @Nullable String detail) {
        return CREATE_COUNTERS.pointer(detail, requireOp("create_counters", "ibv_create_counters", detail),
                context, initAttr);
    }

    /** {@code ibv_destroy_counters}. */
    void destroyCounters(MemorySegment counters) {
        DESTROY_COUNTERS.status(null, requireOp("destroy_counters", "ibv_destroy_counters", null), counters);
    }

    /** {@code ibv_attach_counters_point_flow}; {@code flow} may be NULL (static attach). */
    void attachCountersPointFlow(MemorySegment counters, MemorySegment attachAttr, MemorySegment flow, String detail) {
        ATTACH_COUNTERS_POINT_FLOW.status(detail,
                requireOp("attach_counters_point_flow", "ibv_attach_counters_point_flow", detail),
                counters, attachAttr, flow);
    }

    /** {@code ibv_read_counters} into {@code values} (uint64_t[ncounters]). */
    void readCounters(MemorySegment counters, MemorySegment values, int count) {
        // flags 0: read the device now rather than IBV_READ_COUNTERS_ATTR_PREFER_CACHED
        READ_COUNTERS.status(null, requireOp("read_counters", "ibv_read_counters", null), counters, values, count, 0);
    }

    private MemorySegment requireOp(String op, String verb, @Nullable String detail) {
        MemorySegment function = extendedOp(op);
        if (function.address() == 0) {
            throw NativeErrors.failure(verb, Errno.EOPNOTSUPP.code(),
                    (detail == null ? "" : detail + ": ") + "the device's provider library has no " + op);
        }
        return function;
    }

    private static IllegalStateException unexpected(Throwable e) {
        if (e instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (e instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(e);
    }
}
