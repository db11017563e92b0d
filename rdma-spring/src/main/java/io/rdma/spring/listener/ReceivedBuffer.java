package io.rdma.spring.listener;

import io.rdma.spring.template.ReplyOutcome;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A received message still in the pool buffer it arrived in: what an {@link RdmaListener}
 * method taking a {@code ReceivedBuffer} gets instead of a copy. {@link #payload()} is a
 * {@link MemorySegment} over the received bytes in the registered receive buffer itself.
 *
 * <p>The buffer is lent to the invocation. When the method has returned (and its reply, if it
 * returned one, was sent or failed) the listener releases it, and it is posted to the receive
 * queue again. {@link #release()} (or {@link #close()}, for try-with-resources) gives it back
 * earlier, so the receive queue is refilled while the method goes on; releasing twice does
 * nothing. A method that keeps the message past its return calls {@link #retain()}: then the
 * buffer is the caller's to release, from any thread, and until it does its receive queue holds
 * one buffer fewer. A retained buffer that becomes unreachable unreleased is a leak: it is logged
 * at ERROR and its buffer returned when the garbage collector finds it; when the listener stops
 * (the application closes, before the pool is freed) the payload of a buffer still retained is
 * made inaccessible.
 *
 * <p>{@link #payload()} after the release fails rather than hand out memory that by then holds
 * another message. The segment it gave while the buffer was lent is a plain view of the receive
 * buffer, as a released Netty buffer's NIO view is: kept past the release it reads whatever the
 * buffer holds next (never freed memory: the pool's memory lives until the pool closes, and
 * reads then fail). A per-message scope that release closes would catch that too, but costs a
 * memory session per message on the path this class exists to make cheap. Copy what must
 * outlive the invocation, or {@link #retain()} the buffer: a retained buffer's payload is
 * bound to a scope of its own that its release closes, so a segment kept past that release
 * throws {@link IllegalStateException} on access.
 */
public final class ReceivedBuffer extends Delivery implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(ReceivedBuffer.class);
    private static final byte[] NO_BYTES = new byte[0];
    private static final Cleaner LEAKS = Cleaner.create(Thread.ofPlatform().daemon(true)
            .name("rdma-received-buffer-leaks").factory());

    private static final int LENT = 0;
    private static final int RETAINED = 1;
    private static final int RELEASED = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ReceivedBuffer.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // One of these per message on the zero-copy path: each field is one a message needs (the
    // queue pair's name is the container's, the length the payload's).
    private final ReceiveContainer container;
    /** The received bytes, exactly: a view of the receive buffer. */
    private final MemorySegment received;
    private final boolean hasImmediateData;
    private final int immediateData;
    private final int bufferIndex;
    private final int receivedIn;
    private volatile int state = LENT;
    /** Until the invocation starts and after the release, null; the retained scope's view once retained. */
    private @Nullable MemorySegment payload;
    private @Nullable Retained retained;

    ReceivedBuffer(ReceiveContainer container, MemorySegment received, boolean hasImmediateData, int immediateData,
                   int bufferIndex, int receivedIn) {
        this.container = container;
        this.received = received;
        this.hasImmediateData = hasImmediateData;
        this.immediateData = immediateData;
        this.bufferIndex = bufferIndex;
        this.receivedIn = receivedIn;
    }

    /** The queue pair the message came in on, and a reply goes out on. */
    @Override
    public String queuePair() {
        return container.name();
    }

    @Override
    public boolean hasImmediateData() {
        return hasImmediateData;
    }

    /** The immediate data the sender attached; 0 when {@link #hasImmediateData()} is false. */
    @Override
    public int immediateData() {
        return immediateData;
    }

    @Override
    ReplyOutcome replyOutcome(ListenerInvoker invoker) {
        return failure -> {
            if (failure != null) {
                invoker.replyFailed(this, failure);
            }
        };
    }

    /** How many bytes were received: the payload's size. */
    public int length() {
        return (int) received.byteSize();
    }

    /**
     * The received bytes, in the receive buffer itself; valid until {@link #release()}.
     *
     * @throws IllegalStateException when the buffer was released
     */
    public MemorySegment payload() {
        MemorySegment current = payload;
        if (state == RELEASED || current == null) {
            throw new IllegalStateException("the buffer of this message of queue pair '" + queuePair() + "' was"
                    + " released, and may hold another message by now; copy what you need before releasing it");
        }
        return current;
    }

    /**
     * Takes the buffer over: the listener no longer releases it when the method returns, and
     * whoever holds it must {@link #release()} it, from any thread. Call it before the method
     * returns; take {@link #payload()} again afterwards: that segment is the one its release
     * revokes.
     *
     * @throws IllegalStateException when the buffer was already retained or released
     */
    public ReceivedBuffer retain() {
        if (!STATE.compareAndSet(this, LENT, RETAINED)) {
            throw new IllegalStateException("the buffer of this message of queue pair '" + queuePair() + "' was already "
                    + (state == RETAINED ? "retained" : "released"));
        }
        Arena shared = Arena.ofShared();
        Retained owner = new Retained(shared, container, bufferIndex, receivedIn);
        payload = received.reinterpret(received.byteSize(), shared, null);
        retained = owner;
        owner.cleanable = LEAKS.register(this, owner);
        container.retained(owner);
        return this;
    }

    /**
     * Gives the buffer back, to be posted to the receive queue again; {@link #payload()} fails from
     * then on, and so does a retained buffer's payload segment. Does nothing when it was released
     * already. Thread-safe: a release racing the listener's own on return gives the buffer back once.
     */
    public void release() {
        if (STATE.compareAndSet(this, LENT, RELEASED)) {
            payload = null;
            container.returned(bufferIndex, receivedIn);
        } else if (STATE.compareAndSet(this, RETAINED, RELEASED)) {
            Retained owner = retained;
            if (owner != null) {
                owner.released = true;
                Objects.requireNonNull(owner.cleanable).clean(); // retain() registered it
            }
        }
    }

    /** {@link #release()}, for try-with-resources. */
    @Override
    public void close() {
        release();
    }

    @Override
    void start() {
        payload = received;
    }

    @Override
    void finish() {
        if (state == LENT) {
            release();
        }
    }

    /** A copy, empty when the method released the buffer before failing. */
    @Override
    byte[] bytes() {
        MemorySegment current = payload;
        return state == RELEASED || current == null ? NO_BYTES : current.toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * What gives a retained buffer back: its release, or else the cleaner once the buffer is
     * unreachable; and what {@link #revoke()}s its payload when the listener stops first.
     */
    static final class Retained implements Runnable {

        private final Arena scope;
        private final ReceiveContainer container;
        private final int bufferIndex;
        private final int receivedIn;
        private volatile boolean released;
        private Cleaner.@Nullable Cleanable cleanable;

        private Retained(Arena scope, ReceiveContainer container, int bufferIndex, int receivedIn) {
            this.scope = scope;
            this.container = container;
            this.bufferIndex = bufferIndex;
            this.receivedIn = receivedIn;
        }

        @Override
        public void run() {
            if (!released) {
                String leak = "A retained ReceivedBuffer of queue pair '" + container.name() + "' became unreachable without"
                        + " being released: its receive buffer was missing from the pool until now; release"
                        + " retained buffers when done with them";
                if (container.firstLeak()) {
                    logger.error(leak + " (further leaks of this queue pair are logged at DEBUG)");
                } else {
                    logger.debug(leak);
                }
            }
            closeScope();
            container.returned(bufferIndex, receivedIn);
            container.forget(this);
        }

        /** The listener stops while the buffer is still retained: its memory is about to be freed with its pool. */
        void revoke() {
            logger.error("A retained ReceivedBuffer of queue pair '" + container.name() + "' was still held when its listener"
                    + " stopped; its payload is no longer accessible");
            closeScope();
        }

        private void closeScope() {
            try {
                scope.close();
            } catch (IllegalStateException alreadyClosed) {
                // revoked at stop, released afterwards: nothing left to close
            }
        }
    }
}
