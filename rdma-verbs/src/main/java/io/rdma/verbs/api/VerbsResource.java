package io.rdma.verbs.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * A verbs object with a lifetime. Each resource holds strong references to the parents it
 * depends on (rust-ibverbs), and each parent knows its dependents, so closing a parent
 * first closes every resource that depends on it, in libibverbs' destroy order
 * ({@link ResourceKind}) and newest first within a kind (pyverbs). A closed resource
 * refuses every further use with {@link ResourceClosedException}, so no handle ever
 * dangles into freed native memory. Accessors of values fixed at creation (keys, sizes,
 * options) keep answering after the close.
 *
 * <p>Thread-safe: creation and destruction are serialized per device context; the data path
 * (post, poll) takes only the resource's own lock, so a post or poll racing a close either
 * finishes first or fails with {@link ResourceClosedException}.
 */
public abstract class VerbsResource implements AutoCloseable {

    private static final AtomicLong CREATION_SEQUENCE = new AtomicLong();
    private static final Comparator<VerbsResource> DESTROY_ORDER =
            Comparator.comparingInt((VerbsResource r) -> r.kind.destroyRank())
                    .thenComparing(Comparator.comparingLong((VerbsResource r) -> r.sequence).reversed());

    private final ResourceKind kind;
    private final DeviceContext context;
    private final long sequence = CREATION_SEQUENCE.incrementAndGet();
    private final Object handle;
    private final List<VerbsResource> parents;
    /** Guarded by the context's lifecycle lock. */
    private final Set<VerbsResource> dependents = new LinkedHashSet<>();
    private volatile boolean closed;

    /** Called with the context's lifecycle lock held, after the provider object exists. */
    VerbsResource(ResourceKind kind, @Nullable DeviceContext context, Object handle, List<VerbsResource> parents) {
        this.kind = kind;
        this.handle = handle;
        this.context = context == null ? (DeviceContext) this : context;
        this.parents = List.copyOf(parents);
        for (VerbsResource parent : this.parents) {
            parent.dependents.add(this);
        }
    }

    public final ResourceKind kind() {
        return kind;
    }

    public final DeviceContext context() {
        return context;
    }

    public final boolean isClosed() {
        return closed;
    }

    /** Dependents still open, for tools that walk the tree (the actuator does). */
    public final List<VerbsResource> dependents() {
        context.lifecycleLock().lock();
        try {
            return List.copyOf(dependents);
        } finally {
            context.lifecycleLock().unlock();
        }
    }

    final void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException(toString());
        }
    }

    /** The provider object this resource stands for; maps provider events back to the resource. */
    final Object handle() {
        return handle;
    }

    /**
     * Destroys the provider object. Implementations take their own data-path lock so that a
     * concurrent post or poll either finishes first or sees the resource closed. One that fails
     * after the provider object is gone (a step of it failed) calls {@link #markClosed()} before
     * it throws; one that throws without it was refused, and the object is still there.
     */
    abstract void destroyHandle();

    /** Marks closed; subclasses call it from {@link #destroyHandle()} once the provider object is gone. */
    final void markClosed() {
        closed = true;
    }

    /**
     * Destroys this resource after every resource that depends on it, in libibverbs' order:
     * unlike {@code ibv_dealloc_pd} and the other destroy verbs, which refuse a parent with live
     * children (EBUSY), a close cascades. Idempotent. The class of each resource says what
     * depends on it.
     *
     * <p>A failing step never stops the cascade: every dependent is destroyed, then this
     * resource, and only then is the first failure thrown, with the later ones
     * {@linkplain Throwable#addSuppressed suppressed}. A dependent whose destroy failed is closed
     * all the same, since its parent is about to go and nothing may reach the provider object
     * through it any more (the provider's {@link Verbs#liveObjects() census} may still count an
     * object it refused to destroy). This resource's own destroy is the exception: when the
     * provider refuses it (for example EBUSY for a completion counter still attached to an open
     * QP) it stays open, so that the close can be tried again once the cause is gone.
     *
     * @throws VerbsException when the provider fails to destroy this resource or a dependent:
     *         EBUSY for a {@link CompletionCounter} still attached to an open QP or
     *         {@link FlowCounters} still bound to an open flow; otherwise the errno the destroy
     *         verb (or a step of it, such as a {@link Connection}'s move of its QP to ERR) fails
     *         with; thrown after every other resource of the cascade was destroyed
     */
    @Override
    public final void close() {
        context.lifecycleLock().lock();
        try {
            if (closed) {
                return;
            }
            Set<VerbsResource> doomed = Collections.newSetFromMap(new IdentityHashMap<>());
            collectDependents(this, doomed);
            List<VerbsResource> order = new ArrayList<>(doomed);
            order.sort(DESTROY_ORDER);
            RuntimeException failure = null;
            for (VerbsResource resource : order) {
                failure = firstOf(failure, resource.destroyOne(true));
            }
            failure = firstOf(failure, destroyOne(false));
            if (failure != null) {
                throw failure;
            }
        } finally {
            context.lifecycleLock().unlock();
        }
    }

    private static void collectDependents(VerbsResource resource, Set<VerbsResource> into) {
        for (VerbsResource dependent : resource.dependents) {
            if (!dependent.closed && into.add(dependent)) {
                collectDependents(dependent, into);
            }
        }
    }

    private static @Nullable RuntimeException firstOf(@Nullable RuntimeException first,
                                                      @Nullable RuntimeException next) {
        if (first == null) {
            return next;
        }
        if (next != null) {
            first.addSuppressed(next);
        }
        return first;
    }

    /**
     * Destroys the provider object and forgets this resource; returns what failed instead of
     * throwing it, so that the cascade goes on. A destroy that threw before its resource was
     * marked closed was refused by the provider: unless {@code closeWhenRefused} (a dependent
     * whose parent goes next), the resource stays open for another try.
     */
    private @Nullable RuntimeException destroyOne(boolean closeWhenRefused) {
        if (closed) {
            return null;
        }
        RuntimeException failure = null;
        try {
            destroyHandle();
        } catch (RuntimeException e) {
            failure = e;
            if (!closed && !closeWhenRefused) {
                return failure;
            }
        }
        closed = true;
        for (VerbsResource parent : parents) {
            parent.dependents.remove(this);
        }
        context.forget(this);
        return failure;
    }

    @Override
    public String toString() {
        return describe();
    }

    /** A short human description: kind, identity and device, for errors and logs. */
    abstract String describe();
}
