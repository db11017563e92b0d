package io.rdma.spring.template;

import io.rdma.verbs.api.SendOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * One channel's idle {@link ForgottenSend}s, a stack: a send takes the top one (or makes one when
 * none is idle), and a settled one goes back on top, up to {@code keep} idle ones (a burst that
 * waited for room leaves no more behind than the send queue can hold in flight).
 *
 * <p>Sends are settled on whichever thread sees their end (a completion poller, the send-timeout's
 * timer, a caller whose post was refused), so pushes are lock-free; {@link #take} is called under
 * the channel's {@link QueuePairOperations} lock only. With one taker at a time, the top a taker
 * reads cannot be taken and pushed back, with another below it, before its compare-and-set, which
 * is what makes a reused node unsafe in a stack that several threads pop (ABA).
 */
final class ForgottenSends {

    private static final VarHandle TOP;
    private static final VarHandle IDLE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TOP = lookup.findVarHandle(ForgottenSends.class, "top", ForgottenSend.class);
            IDLE = lookup.findVarHandle(ForgottenSends.class, "idle", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String channel;
    private final ForgottenSendFailureHandler failureHandler;
    private final int keep;
    @SuppressWarnings("unused") // through TOP
    private volatile @Nullable ForgottenSend top;
    /** About how many are idle: bounds the stack, so it need not be exact. */
    @SuppressWarnings("unused") // through IDLE
    private volatile int idle;

    /** Those of {@code channel}, whose failures go to {@code failureHandler}; at most {@code keep} kept idle. */
    ForgottenSends(String channel, ForgottenSendFailureHandler failureHandler, int keep) {
        this.channel = channel;
        this.failureHandler = failureHandler;
        this.keep = keep;
    }

    /** An idle send, or a new one, carrying the send of {@code length} bytes that {@code writer} fills. Under the channel's lock. */
    ForgottenSend take(SendOpcode opcode, int length, Consumer<MemorySegment> writer, int immediateData) {
        ForgottenSend taken;
        do {
            taken = (ForgottenSend) TOP.getVolatile(this);
            if (taken == null) {
                return new ForgottenSend(this).carry(opcode, length, writer, immediateData);
            }
        } while (!TOP.compareAndSet(this, taken, taken.below));
        IDLE.getAndAdd(this, -1);
        taken.below = null;
        return taken.carry(opcode, length, writer, immediateData);
    }

    /** {@code settled} is idle again: kept for a later send, unless {@code keep} are idle already. */
    void recycle(ForgottenSend settled) {
        settled.clear();
        if ((int) IDLE.getVolatile(this) >= keep) {
            return;
        }
        IDLE.getAndAdd(this, 1);
        ForgottenSend below;
        do {
            below = (ForgottenSend) TOP.getVolatile(this);
            settled.below = below;
        } while (!TOP.compareAndSet(this, below, settled));
    }

    /** Tells the template's handler that a send of this channel failed. */
    void failed(String operation, Throwable failure) {
        failureHandler.failed(channel, operation, failure);
    }
}
