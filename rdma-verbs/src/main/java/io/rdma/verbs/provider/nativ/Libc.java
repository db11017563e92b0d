package io.rdma.verbs.provider.nativ;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * The two libc calls the blocking verbs need: {@code poll(2)} to wait on a channel's file
 * descriptor with a timeout (libibverbs' own waits have none), and {@code fcntl(2)} to make
 * that descriptor non-blocking, so a waiter that lost a race for an event gets EAGAIN
 * instead of sleeping forever.
 */
final class Libc {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final short POLLIN = 1;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 0x800;
    static final int EINTR = 4;
    static final int EAGAIN = 11;

    /** {@code struct pollfd}. */
    static final StructLayout POLLFD = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("fd"), ValueLayout.JAVA_SHORT.withName("events"),
            ValueLayout.JAVA_SHORT.withName("revents"));

    private static final CheckedCall POLL = CheckedCall.bind("poll",
            LINKER.defaultLookup().findOrThrow("poll"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT));
    private static final CheckedCall FCNTL = CheckedCall.bindVariadic("fcntl",
            LINKER.defaultLookup().findOrThrow("fcntl"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT), 2);

    /** Longest single sleep, so an interrupt or a close is noticed promptly. */
    private static final long SLICE_MILLIS = 100;

    private Libc() {
    }

    /**
     * Waits until {@code fd} is readable or {@code timeoutNanos} passed (zero or less: only checks).
     * Returns whether it is readable. Throws InterruptedException when the thread is interrupted,
     * checked between slices of at most 100 ms.
     */
    static boolean awaitReadable(int fd, long timeoutNanos, String verb) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(POLLFD);
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException(verb + " interrupted");
                }
                long remaining = deadline - System.nanoTime();
                int millis = (int) Math.clamp(remaining / 1_000_000, 0, SLICE_MILLIS);
                pollfd.set(ValueLayout.JAVA_INT, 0, fd);
                pollfd.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
                pollfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
                if (pollReadable(pollfd, millis, verb)) {
                    return true;
                }
                if (remaining <= 0) {
                    return false;
                }
            }
        }
    }

    /** One poll(2) of up to {@code millis}; a signal (EINTR) counts as nothing readable yet. */
    private static boolean pollReadable(MemorySegment pollfd, int millis, String verb) {
        try {
            return POLL.value(verb + ": poll(2) on the event file descriptor", pollfd, 1L, millis) > 0
                    && (pollfd.get(ValueLayout.JAVA_SHORT, 6) & POLLIN) != 0;
        } catch (io.rdma.verbs.api.VerbsException e) {
            if (e.errnoCode() == EINTR) {
                return false;
            }
            throw e;
        }
    }

    /** Sets O_NONBLOCK on {@code fd}. */
    static void makeNonBlocking(int fd, String what) {
        int flags = FCNTL.value("F_GETFL on " + what, fd, F_GETFL, 0);
        FCNTL.value("F_SETFL O_NONBLOCK on " + what, fd, F_SETFL, flags | O_NONBLOCK);
    }
}
