package io.rdma.verbs.provider.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A pipe(2) whose read end stands in for an event channel's descriptor: written, it is
 * readable, as a channel is when an event is queued. Needs no RDMA device.
 */
final class Pipe {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle PIPE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("pipe"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle WRITE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("write"),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("close"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private final Arena arena = Arena.ofConfined();
    private final int readEnd;
    private final int writeEnd;
    private final EventDescriptor readDescriptor;

    Pipe() throws Throwable {
        MemorySegment fds = arena.allocate(ValueLayout.JAVA_INT, 2);
        if ((int) PIPE.invokeExact(fds) != 0) {
            throw new IllegalStateException("pipe(2) failed");
        }
        readEnd = fds.getAtIndex(ValueLayout.JAVA_INT, 0);
        writeEnd = fds.getAtIndex(ValueLayout.JAVA_INT, 1);
        Libc.makeNonBlocking(readEnd, "the pipe's read end");
        readDescriptor = new EventDescriptor(readEnd, arena);
    }

    /** The read end, as the provider waits on a channel. */
    EventDescriptor readDescriptor() {
        return readDescriptor;
    }

    /** Writes 8 bytes, making the read end readable; returns how many were written. */
    long write() throws Throwable {
        return (long) WRITE.invokeExact(writeEnd, arena.allocate(8), 8L);
    }

    void close() throws Throwable {
        int closedRead = (int) CLOSE.invokeExact(readEnd);
        int closedWrite = (int) CLOSE.invokeExact(writeEnd);
        arena.close();
        if (closedRead != 0 || closedWrite != 0) {
            throw new IllegalStateException("close(2) of the pipe failed");
        }
    }
}
