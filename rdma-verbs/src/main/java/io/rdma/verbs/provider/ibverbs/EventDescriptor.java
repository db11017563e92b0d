package io.rdma.verbs.provider.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A non-blocking event file descriptor (a completion channel's, a context's async events',
 * an rdma_cm event channel's) with the native memory a wait on it needs: its
 * {@code struct pollfd} and the errno capture state of the calls made while waiting,
 * allocated once so that a wait allocates nothing. One thread at a time may use it.
 */
final class EventDescriptor {

    /** Longest single poll(2), so an interrupt or a stop is noticed promptly. */
    private static final int SLICE_MILLIS = 100;
    /** {@link #SLICE_MILLIS} in nanoseconds, for callers that wait one slice at a time. */
    static final long SLICE_NANOS = SLICE_MILLIS * 1_000_000L;

    private final MemorySegment pollfd;
    private final MemorySegment callState;

    /** {@code fd} must already be non-blocking ({@link Libc#makeNonBlocking}). */
    EventDescriptor(int fd, Arena arena) {
        this.pollfd = arena.allocate(Libc.POLLFD);
        this.callState = arena.allocate(CheckedCall.CALL_STATE);
        pollfd.set(ValueLayout.JAVA_INT, Libc.POLLFD_FD, fd);
        pollfd.set(ValueLayout.JAVA_SHORT, Libc.POLLFD_EVENTS, Libc.POLLIN);
    }

    /** Where a call bound with {@code captureCallState("errno")} made on this descriptor's behalf leaves errno. */
    MemorySegment callState() {
        return callState;
    }

    /**
     * The errno of a call that captured into {@link #callState()} and returned {@code rc}
     * (0, the errno, or -1 with errno set; see {@link CheckedCall#statusErrno}).
     */
    int errnoOf(int rc) {
        return CheckedCall.statusErrno(rc, CheckedCall.capturedErrno(callState));
    }

    /**
     * Waits until the descriptor is readable or {@code deadline} ({@link System#nanoTime()})
     * passed; a deadline already passed only checks. Returns whether it is readable. Throws
     * InterruptedException when the thread is interrupted, checked between polls of at most
     * 100 ms; a signal (EINTR) only starts the next poll.
     */
    boolean awaitReadable(long deadline, String verb) throws InterruptedException {
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException(verb + " interrupted");
            }
            long remaining = deadline - System.nanoTime();
            int millis = (int) Math.clamp(remaining / 1_000_000, 0, SLICE_MILLIS);
            pollfd.set(ValueLayout.JAVA_SHORT, Libc.POLLFD_REVENTS, (short) 0);
            int ready = Libc.poll(callState, pollfd, millis);
            if (ready > 0 && (pollfd.get(ValueLayout.JAVA_SHORT, Libc.POLLFD_REVENTS) & Libc.POLLIN) != 0) {
                return true;
            }
            if (ready < 0) {
                int errno = CheckedCall.capturedErrno(callState);
                if (errno != Libc.EINTR) {
                    throw NativeErrors.failure(verb, errno, "poll(2) on the event file descriptor");
                }
            }
            if (remaining <= 0) {
                return false;
            }
        }
    }
}
