package io.rdma.verbs.provider.ibverbs;

import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The two libc calls the blocking verbs need: {@code poll(2)} to wait on an event file
 * descriptor with a timeout (libibverbs' own waits have none), and {@code fcntl(2)} to make
 * that descriptor non-blocking, so a waiter that lost a race for an event gets EAGAIN
 * instead of sleeping forever. {@link EventDescriptor} puts them together.
 */
final class Libc {

    private static final SymbolLookup LIBC = Linker.nativeLinker().defaultLookup();
    static final short POLLIN = 1;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 0x800;
    static final int EINTR = 4;
    static final int EAGAIN = 11;

    /** {@code struct pollfd}. */
    static final StructLayout POLLFD = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("fd"), ValueLayout.JAVA_SHORT.withName("events"),
            ValueLayout.JAVA_SHORT.withName("revents"));
    static final long POLLFD_FD = POLLFD.byteOffset(MemoryLayout.PathElement.groupElement("fd"));
    static final long POLLFD_EVENTS = POLLFD.byteOffset(MemoryLayout.PathElement.groupElement("events"));
    static final long POLLFD_REVENTS = POLLFD.byteOffset(MemoryLayout.PathElement.groupElement("revents"));

    /**
     * {@code int poll(struct pollfd *, nfds_t, int)}, errno captured: called on every event wait,
     * so bound with exact types for {@code invokeExact}. It blocks, so it is not {@code critical}.
     */
    private static final MethodHandle POLL = NativeDowncalls.POLL.bindTo(LIBC.findOrThrow("poll"));
    private static final CheckedCall FCNTL = CheckedCall.bind("fcntl", LIBC.findOrThrow("fcntl"),
            NativeDowncalls.FCNTL);

    private Libc() {
    }

    /**
     * {@code poll(2)} on one {@code struct pollfd} for up to {@code millis}: the number of
     * ready descriptors (0 or 1), or -1 with errno in {@code callState}
     * ({@link CheckedCall#CALL_STATE}). Allocates nothing.
     */
    static int poll(MemorySegment callState, MemorySegment pollfd, int millis) {
        try {
            return (int) POLL.invokeExact(callState, pollfd, 1L, millis);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("downcall poll failed", e);
        }
    }

    /** Sets O_NONBLOCK on {@code fd}. */
    static void makeNonBlocking(int fd, String what) {
        int flags = FCNTL.value("F_GETFL on " + what, fd, F_GETFL, 0);
        FCNTL.value("F_SETFL O_NONBLOCK on " + what, fd, F_SETFL, flags | O_NONBLOCK);
    }
}
