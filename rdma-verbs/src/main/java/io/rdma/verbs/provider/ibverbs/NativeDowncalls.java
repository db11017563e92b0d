package io.rdma.verbs.provider.ibverbs;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Every downcall the native provider links, with its linker options: the single list that
 * rdma-verbs' native-image reachability metadata
 * ({@code META-INF/native-image/io.rdma/rdma-verbs/reachability-metadata.json}) is generated
 * from (see {@code docs/native-image.md}). A native image has a stub only for a registered
 * signature, so a signature linked anywhere else would fail there and nowhere else.
 *
 * <p>Three kinds of downcall: the signatures the hand-written layer declares itself (the
 * {@code static inline} verbs called through function pointers, the extended-CQ poll functions,
 * libc, the completion counter verbs newer than the bindings), all here; every function of the
 * generated bindings as jextract links it, when the function's holder class initialises (the
 * provider's own binding of the same function does not replace it); and every function of the
 * generated bindings with {@code errno} captured, as {@link CheckedCall} binds it. The provider
 * makes no upcalls.
 */
final class NativeDowncalls {

    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    /** Short, non-blocking data-path calls: no thread-state transition, no heap segments. */
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    // ------------------------------------------------------------- data path: ibv_context_ops, critical

    /** {@code int (*post_send)(qp, wr, bad_wr)}; {@code post_recv} and {@code post_srq_recv} have the same shape. */
    static final Downcall POST = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), CRITICAL);
    /** {@code int (*poll_cq)(cq, num_entries, wc)}. */
    static final Downcall POLL_CQ = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS),
            CRITICAL);
    /** {@code int (*req_notify_cq)(cq, solicited_only)}. */
    static final Downcall REQ_NOTIFY_CQ = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), CRITICAL);

    // ------------------------------------------------------------- data path: ibv_cq_ex, critical

    /** {@code int (*start_poll)(cq, attr)}. */
    static final Downcall START_POLL = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), CRITICAL);
    /** {@code int (*next_poll)(cq)} and the {@code uint32_t (*read_*)(cq)} functions. */
    static final Downcall CQ_EX_INT = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS), CRITICAL);
    /** {@code void (*end_poll)(cq)}. */
    static final Downcall CQ_EX_VOID = new Downcall(FunctionDescriptor.ofVoid(ADDRESS), CRITICAL);
    /** {@code uint8_t (*read_sl)(cq)}. */
    static final Downcall CQ_EX_BYTE = new Downcall(FunctionDescriptor.of(JAVA_BYTE, ADDRESS), CRITICAL);
    /** {@code uint64_t (*read_completion_ts)(cq)}. */
    static final Downcall CQ_EX_LONG = new Downcall(FunctionDescriptor.of(JAVA_LONG, ADDRESS), CRITICAL);

    // ------------------------------------------------------------- control path: verbs_context, errno captured

    /** {@code int (*query_port)(context, port_num, port_attr, port_attr_len)}. */
    static final Downcall QUERY_PORT = new Downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG), ERRNO);
    /** {@code int (*query_device_ex)(context, input, attr, attr_size)}. */
    static final Downcall QUERY_DEVICE_EX = new Downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG), ERRNO);
    /** {@code create_cq_ex(context, attr)}, {@code ibv_create_flow(qp, attr)}, {@code create_counters(context, attr)}. */
    static final Downcall CREATE = new Downcall(FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), ERRNO);
    /** {@code ibv_destroy_flow(flow)}, {@code destroy_counters(counters)}. */
    static final Downcall DESTROY = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS), ERRNO);
    /** {@code int (*attach_counters_point_flow)(counters, attr, flow)}. */
    static final Downcall ATTACH_COUNTERS_POINT_FLOW = new Downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), ERRNO);
    /** {@code int (*read_counters)(counters, counters_value, ncounters, flags)}. */
    static final Downcall READ_COUNTERS = new Downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT), ERRNO);

    // ------------------------------------------------------------- event waits: exact types, errno captured

    /** {@code ibv_get_async_event(context, event)}. */
    static final Downcall GET_ASYNC_EVENT = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /** {@code ibv_get_cq_event(channel, cq, cq_context)}. */
    static final Downcall GET_CQ_EVENT = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
            ERRNO);

    // ------------------------------------------------------------- libc, errno captured

    /** {@code int poll(struct pollfd *, nfds_t, int)}: it blocks, so it is not critical. */
    static final Downcall POLL = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), ERRNO);
    /** {@code int fcntl(int fd, int cmd, ...)} with one {@code int} argument after {@code cmd}. */
    static final Downcall FCNTL = new Downcall(FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), ERRNO,
            Linker.Option.firstVariadicArg(2));
    /** {@code int getrlimit(int, struct rlimit *)}. */
    static final Downcall GETRLIMIT = new Downcall(FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), ERRNO);

    // ------------------------------------------------------------- completion counters (rdma-core 65), errno captured

    /** {@code int _ibv_query_comp_cntr_caps(context, caps, caps_size)}. */
    static final Downcall QUERY_COMP_CNTR_CAPS = new Downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG), ERRNO);
    /** {@code struct ibv_comp_cntr *ibv_create_comp_cntr(context, init_attr)}. */
    static final Downcall CREATE_COMP_CNTR = new Downcall(FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), ERRNO);
    /** {@code int ibv_destroy_comp_cntr(comp_cntr)}. */
    static final Downcall DESTROY_COMP_CNTR = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS), ERRNO);
    /** {@code int ibv_read_comp_cntr(comp_cntr, value)}; {@code ibv_read_err_comp_cntr} has the same shape. */
    static final Downcall READ_COMP_CNTR = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), ERRNO);
    /** {@code int ibv_qp_attach_comp_cntr(qp, comp_cntr, attr)}. */
    static final Downcall QP_ATTACH_COMP_CNTR = new Downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), ERRNO);
    /** {@code int ibv_set_comp_cntr(comp_cntr, value)}; the error, increment and error-increment ones alike. */
    static final Downcall SET_COMP_CNTR = new Downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), ERRNO);

    private static final List<Downcall> DECLARED = List.of(POST, POLL_CQ, REQ_NOTIFY_CQ, START_POLL, CQ_EX_INT,
            CQ_EX_VOID, CQ_EX_BYTE, CQ_EX_LONG, QUERY_PORT, QUERY_DEVICE_EX, CREATE, DESTROY, ATTACH_COUNTERS_POINT_FLOW,
            READ_COUNTERS, GET_ASYNC_EVENT, GET_CQ_EVENT, POLL, FCNTL, GETRLIMIT, QUERY_COMP_CNTR_CAPS,
            CREATE_COMP_CNTR, DESTROY_COMP_CNTR, READ_COMP_CNTR, QP_ATTACH_COMP_CNTR, SET_COMP_CNTR);

    private NativeDowncalls() {
    }

    /** How {@link CheckedCall} links a function of the generated bindings: errno captured. */
    static Downcall capturingErrno(FunctionDescriptor generated) {
        return new Downcall(generated, ERRNO);
    }

    /**
     * Every downcall the provider links, given the descriptors of the generated bindings'
     * functions ({@code rdma_h.*$descriptor()}, which only load once libibverbs does).
     */
    static List<Downcall> all(Collection<FunctionDescriptor> generated) {
        return Stream.concat(DECLARED.stream(), generated.stream()
                        .flatMap(descriptor -> Stream.of(new Downcall(descriptor), capturingErrno(descriptor))))
                .toList();
    }
}
