package io.rdma.verbs.provider.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import org.jspecify.annotations.Nullable;

/**
 * A library function bound with {@code errno} captured right after the call
 * ({@link Linker.Option#captureCallState}), so a failure can name its errno even though the
 * JVM may run other native code between the call and a later read of errno. For the control
 * path only: each call allocates its capture state. The data path (post, poll) goes through
 * {@link InlineVerbs}, whose verbs return their errno directly; the event waits
 * ({@link EventDescriptor}) bind exact handles and capture into memory preallocated per descriptor.
 */
final class CheckedCall {

    /** Where a downcall bound with {@code captureCallState("errno")} leaves errno. */
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private final String verb;
    private final MethodHandle handle;
    /** Whether the first argument is the function's address (a function pointer, not a symbol). */
    private final boolean unbound;

    private CheckedCall(String verb, MethodHandle handle, boolean unbound) {
        this.verb = verb;
        this.handle = handle;
        this.unbound = unbound;
    }

    /**
     * Binds the generated bindings' function at {@code address} with its generated
     * {@code descriptor} ({@link NativeDowncalls#capturingErrno}); the call never blocks on the
     * CPU for long or on I/O.
     */
    static CheckedCall bind(String verb, MemorySegment address, FunctionDescriptor descriptor) {
        return bind(verb, address, NativeDowncalls.capturingErrno(descriptor));
    }

    /** Binds the symbol at {@code address} as {@code downcall}, one of {@link NativeDowncalls}' that capture errno. */
    static CheckedCall bind(String verb, MemorySegment address, Downcall downcall) {
        return new CheckedCall(verb, downcall.bindTo(address), false);
    }

    /**
     * Binds a function pointer read at run time as {@code downcall} (one that captures errno):
     * its address is passed as the first argument of each call.
     */
    static CheckedCall bindPointer(String verb, Downcall downcall) {
        return new CheckedCall(verb, downcall.handle(), true);
    }

    String verb() {
        return verb;
    }

    /** A verb returning a pointer, NULL with errno set on failure. */
    MemorySegment pointer(@Nullable String detail, Object... arguments) {
        Outcome outcome = invoke(arguments);
        MemorySegment result = (MemorySegment) outcome.result;
        if (result.address() == 0) {
            throw NativeErrors.failure(verb, outcome.errno == 0 ? NativeErrors.EIO : outcome.errno, detail);
        }
        return result;
    }

    /**
     * A verb returning 0 on success and, on failure, either the errno (most of libibverbs) or -1
     * with errno set (librdmacm, {@code ibv_get_cq_event}); both are handled.
     */
    void status(@Nullable String detail, Object... arguments) {
        int errno = errnoOf(arguments);
        if (errno != 0) {
            throw NativeErrors.failure(verb, errno, detail);
        }
    }

    /** Like {@link #status} but returns the errno (0 on success) for callers that treat some errnos as normal. */
    int errnoOf(Object... arguments) {
        Outcome outcome = invoke(arguments);
        return statusErrno((int) outcome.result, outcome.errno);
    }

    /**
     * The errno of a verb returning 0, the errno, or -1 with errno set (as {@link #status}
     * accepts), given the errno captured with the call.
     */
    static int statusErrno(int rc, int capturedErrno) {
        if (rc == 0) {
            return 0;
        }
        if (rc > 0) {
            return rc;
        }
        return capturedErrno != 0 ? capturedErrno : -rc;
    }

    /** The errno a call bound with {@code captureCallState("errno")} left in {@code callState}. */
    static int capturedErrno(MemorySegment callState) {
        return (int) ERRNO.get(callState, 0L);
    }

    /** A verb returning an int value, negative with errno set on failure. */
    int value(@Nullable String detail, Object... arguments) {
        Outcome outcome = invoke(arguments);
        int rc = (int) outcome.result;
        if (rc < 0) {
            throw NativeErrors.failure(verb, outcome.errno != 0 ? outcome.errno : -rc, detail);
        }
        return rc;
    }

    /** A function without a failure result. */
    void run(Object... arguments) {
        invoke(arguments);
    }

    private record Outcome(Object result, int errno) {
    }

    private Outcome invoke(Object... arguments) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(CALL_STATE);
            // the capture state leads the arguments, after the function address when there is one
            int at = unbound ? 1 : 0;
            Object[] all = new Object[arguments.length + 1];
            System.arraycopy(arguments, 0, all, 0, at);
            all[at] = capture;
            System.arraycopy(arguments, at, all, at + 1, arguments.length - at);
            Object result = handle.invokeWithArguments(all);
            return new Outcome(result, capturedErrno(capture));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("downcall " + verb + " failed", e);
        }
    }
}
