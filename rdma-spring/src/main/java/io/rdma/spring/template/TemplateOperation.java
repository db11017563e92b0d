package io.rdma.spring.template;

import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.RemoteBuffer;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * One operation of the {@link RdmaTemplate}: what the caller asked for, how it fills its leased
 * buffer and work request once posted, what its completion yields, and, being the future the
 * caller holds, its outcome. Each kind keeps only its own operands in fields, rather than in
 * lambdas capturing them, so an operation costs one object on the hot path, and the base class
 * keeps none (a field here is 8 bytes more on most kinds, object sizes being multiples of 8).
 *
 * <p>A caller that gives up is never overruled: the operation is posted only if it can be
 * {@link #claim() claimed} first, and a caller's {@link #cancel}, {@link #completeExceptionally}
 * (which {@link #orTimeout} calls) or {@link #complete} succeeds only while it is not posted, and
 * then it never will be. Once posted, an operation completes with its outcome (its completion's
 * status, or for a request its reply), so a caller never takes an operation that ran for one
 * that did not: {@code cancel} then returns false. A request may still be given up after it was
 * posted, as giving up then only stops the wait for its reply.
 */
abstract sealed class TemplateOperation extends TemplateFuture<@Nullable Object> implements Postable
        permits TemplateOperation.CopyIn, TemplateOperation.WriteIn, TemplateOperation.Read, TemplateOperation.Atomic,
        Request {

    private static final int WAITING = 0;
    private static final int POSTED = 1;
    private static final int ABANDONED = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TemplateOperation.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    static TemplateOperation send(byte[] payload) {
        return new CopyIn(SendOpcode.SEND, payload, 0);
    }

    static TemplateOperation sendWithImmediate(byte[] payload, int immediateData) {
        return new CopyIn(SendOpcode.SEND_WITH_IMM, payload, immediateData);
    }

    static TemplateOperation send(int length, Consumer<MemorySegment> writer) {
        return new WriteIn(SendOpcode.SEND, length, writer, 0);
    }

    static TemplateOperation sendWithImmediate(int length, Consumer<MemorySegment> writer, int immediateData) {
        return new WriteIn(SendOpcode.SEND_WITH_IMM, length, writer, immediateData);
    }

    static TemplateOperation write(byte[] data, RemoteBuffer target) {
        return new RemoteCopyIn(SendOpcode.RDMA_WRITE, data, target, 0);
    }

    static TemplateOperation writeWithImmediate(byte[] data, RemoteBuffer target, int immediateData) {
        return new RemoteCopyIn(SendOpcode.RDMA_WRITE_WITH_IMM, data, target, immediateData);
    }

    /** A listener's reply, {@code immediateData} sent when {@code withImmediateData}; {@code outcome} is told how it ends. */
    static TemplateOperation reply(byte[] payload, boolean withImmediateData, int immediateData, ReplyOutcome outcome) {
        return withImmediateData ? new Reply(SendOpcode.SEND_WITH_IMM, payload, immediateData, outcome)
                : new Reply(SendOpcode.SEND, payload, 0, outcome);
    }

    static TemplateOperation read(RemoteBuffer source, int length) {
        return new Read(source, length);
    }

    static TemplateOperation atomic(SendOpcode opcode, RemoteBuffer target, long compareOrAdd, long swap) {
        return new Atomic(opcode, target, compareOrAdd, swap);
    }

    @Override
    public final boolean claim() {
        return STATE.compareAndSet(this, WAITING, POSTED);
    }

    @Override
    public final void unclaim() {
        STATE.compareAndSet(this, POSTED, WAITING);
    }

    /** Its caller gave up before it was posted, or it was settled while it waited (a request whose channel went down). */
    @Override
    public final boolean withdrawn() {
        return isDone() || (int) STATE.getVolatile(this) == ABANDONED;
    }

    /** Whether the caller may give up now: before the post, or, for a request, while it waits for the reply. */
    private boolean callerMayGiveUp() {
        return STATE.compareAndSet(this, WAITING, ABANDONED) || (awaitsReply() && !isDone());
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return callerMayGiveUp() && super.cancel(mayInterruptIfRunning) && gaveUp();
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        return callerMayGiveUp() && super.completeExceptionally(failure) && gaveUp();
    }

    @Override
    public boolean complete(@Nullable Object value) {
        return callerMayGiveUp() && super.complete(value) && gaveUp();
    }

    /** This operation as the future its caller holds, typed as the call's result. */
    @SuppressWarnings("unchecked")
    final <T extends @Nullable Object> CompletableFuture<T> future() {
        return (CompletableFuture<T>) (CompletableFuture<?>) this;
    }

    /** The template's own completion with the operation's outcome. */
    @Override
    public final void succeed(@Nullable Object value) {
        settling(null);
        super.complete(value);
    }

    /** The template's own completion with a failure: a completion status, a refused post, a timeout. */
    @Override
    public final void fail(Throwable failure) {
        settling(failure);
        super.completeExceptionally(failure);
    }

    /** Just before the template completes the future: {@code failure} null when it succeeded. */
    void settling(@Nullable Throwable failure) {
    }

    /** After its caller gave up: a request forgets its correlation. True, so it can end the chains above. */
    boolean gaveUp() {
        return true;
    }

    /** Whether the future completes with a reply rather than with the send's completion. */
    @Override
    public boolean awaitsReply() {
        return false;
    }

    @Override
    public int immediateData() {
        return 0;
    }

    @Override
    public @Nullable Object outcome(PooledBuffer buffer) {
        return null;
    }

    /**
     * A send of a {@code byte[]}, copied into the buffer when posted. Its immediate data is a
     * plain {@code int}, not boxed: a reply's correlation id is no small number, and an
     * {@code Integer} per reply was 16 of the 432 bytes a request/reply round trip allocated.
     */
    private static sealed class CopyIn extends TemplateOperation permits RemoteCopyIn, Reply {
        private final SendOpcode opcode;
        private final byte[] data;
        private final int immediateData;

        CopyIn(SendOpcode opcode, byte[] data, int immediateData) {
            this.opcode = opcode;
            this.data = data;
            this.immediateData = immediateData;
        }

        @Override
        public final SendOpcode opcode() {
            return opcode;
        }

        @Override
        public final int payloadLength() {
            return data.length;
        }

        @Override
        public final int immediateData() {
            return immediateData;
        }

        @Override
        public void prepare(PooledBuffer buffer, int offset, SendWorkRequest wr) {
            MemorySegment.copy(data, 0, buffer.segment(), ValueLayout.JAVA_BYTE, offset, data.length);
        }
    }

    /** An RDMA write of a {@code byte[]}: copied in as a send is, and addressed to remote memory. */
    private static final class RemoteCopyIn extends CopyIn {
        private final RemoteBuffer target;

        RemoteCopyIn(SendOpcode opcode, byte[] data, RemoteBuffer target, int immediateData) {
            super(opcode, data, immediateData);
            this.target = target;
        }

        @Override
        public void prepare(PooledBuffer buffer, int offset, SendWorkRequest wr) {
            super.prepare(buffer, offset, wr);
            wr.remote(target);
        }
    }

    /**
     * A listener's reply to a message it received, a send of a {@code byte[]} with or without
     * immediate data, whose sender (the listener's container) is told how it ended through
     * {@code outcome} rather than by chaining a callback to its future: a chain costs about 80
     * bytes per reply, on the path a request/reply round trip takes. (40 bytes with the outcome,
     * as a send is: objects take multiples of 8.)
     */
    private static final class Reply extends CopyIn {
        private final ReplyOutcome outcome;

        Reply(SendOpcode opcode, byte[] data, int immediateData, ReplyOutcome outcome) {
            super(opcode, data, immediateData);
            this.outcome = outcome;
        }

        @Override
        void settling(@Nullable Throwable failure) {
            outcome.replySettled(failure);
        }

        @Override
        boolean gaveUp() {
            outcome.replySettled(new CancellationException("the reply was given up before it was sent"));
            return true;
        }

        /**
         * A listener's worker waits for its reply's send only to keep the message in flight until
         * then: it parks at once, as the core it would spin on is the one the requester needs to
         * take the reply (measured: a worker round trip 32-39 µs with no spin here, 48 µs with it).
         * A polling thread that runs the listener polls for the send instead, where nobody else
         * does ({@link TemplateFuture}).
         */
        @Override
        long spinBeforeParkingNanos() {
            return 0;
        }
    }

    /** A zero-copy send: the caller's writer fills the buffer when posted. */
    private static final class WriteIn extends TemplateOperation {
        private final SendOpcode opcode;
        private final int length;
        private final Consumer<MemorySegment> writer;
        private final int immediateData;

        WriteIn(SendOpcode opcode, int length, Consumer<MemorySegment> writer, int immediateData) {
            this.opcode = opcode;
            this.length = length;
            this.writer = writer;
            this.immediateData = immediateData;
        }

        @Override
        public SendOpcode opcode() {
            return opcode;
        }

        @Override
        public int payloadLength() {
            return length;
        }

        @Override
        public int immediateData() {
            return immediateData;
        }

        @Override
        public void prepare(PooledBuffer buffer, int offset, SendWorkRequest wr) {
            writer.accept(offset == 0 ? buffer.segment() : buffer.segment().asSlice(offset));
        }
    }

    /** An RDMA read into the buffer, copied out when it completes. */
    private static final class Read extends TemplateOperation {
        private final RemoteBuffer source;
        private final int length;

        Read(RemoteBuffer source, int length) {
            this.source = source;
            this.length = length;
        }

        @Override
        public SendOpcode opcode() {
            return SendOpcode.RDMA_READ;
        }

        @Override
        public int payloadLength() {
            return length;
        }

        @Override
        public void prepare(PooledBuffer buffer, int offset, SendWorkRequest wr) {
            wr.remote(source);
        }

        @Override
        public Object outcome(PooledBuffer buffer) {
            return buffer.segment().asSlice(0, payloadLength()).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** A compare-and-swap or fetch-and-add, whose old value lands in the buffer. */
    private static final class Atomic extends TemplateOperation {
        private static final ValueLayout.OfLong OLD_VALUE = ValueLayout.JAVA_LONG_UNALIGNED
                .withOrder(ByteOrder.nativeOrder());

        private final SendOpcode opcode;
        private final RemoteBuffer target;
        private final long compareOrAdd;
        private final long swap;

        Atomic(SendOpcode opcode, RemoteBuffer target, long compareOrAdd, long swap) {
            this.opcode = opcode;
            this.target = target;
            this.compareOrAdd = compareOrAdd;
            this.swap = swap;
        }

        @Override
        public SendOpcode opcode() {
            return opcode;
        }

        @Override
        public int payloadLength() {
            return Long.BYTES;
        }

        @Override
        public void prepare(PooledBuffer buffer, int offset, SendWorkRequest wr) {
            wr.remote(target).atomic(compareOrAdd, swap);
        }

        @Override
        public Object outcome(PooledBuffer buffer) {
            return buffer.segment().get(OLD_VALUE, 0);
        }
    }
}
