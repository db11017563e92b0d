package io.rdma.boot.autoconfigure.metrics;

import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.VerbsResource;

import java.util.BitSet;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * One read of something many meters show (all counters of a port, all points of a flow, a port's
 * attributes), shared by those meters so that a scrape reads it once rather than once per meter.
 *
 * <p>Micrometer has no notion of a scrape: a registry just reads its meters one after another. So
 * each meter is a numbered reader, and the snapshot is read again as soon as a reader asks a second
 * time: in one scrape every meter asks once and all share one read; the first meter to ask in the
 * next scrape finds that it has already had the current snapshot and takes a fresh one. A meter
 * therefore never sees a value older than its own previous reading, with no clock and no window to
 * tune, whichever registries scrape and in whatever order. Two registries scraping at once read
 * more often, never staler.
 *
 * <p>A meter holds its snapshot in its value function, and has the resource it describes as its
 * state object. Micrometer holds a meter's state object weakly: were the snapshot the state object,
 * the first garbage collection after the binder that made it became unreachable (the usual
 * {@code new PortCounterMetrics(resources).bindTo(registry)} keeps no binder) would clear it, and
 * the registry would stop calling the function: gauges would show NaN, function counters their
 * last value, and scrapes would read nothing.
 *
 * <p>Thread-safe: reads are serialized, so concurrent scrapes never read the source in parallel.
 */
final class ScrapeSnapshot<T> {

    private final Supplier<@Nullable T> source;
    private final BitSet served = new BitSet();
    private int readers;
    private @Nullable T current;
    private boolean read;

    /** {@code source} reads everything at once; it returns null when there is nothing to read (a closed context). */
    ScrapeSnapshot(Supplier<@Nullable T> source) {
        this.source = source;
    }

    /**
     * A snapshot of what {@code read} reads from {@code owner}: nothing once the owner is closed or
     * a read fails, so its meters show NaN rather than the scrape failing.
     */
    static <T> ScrapeSnapshot<T> of(VerbsResource owner, Supplier<T> read) {
        return new ScrapeSnapshot<>(() -> {
            try {
                return owner.isClosed() ? null : read.get();
            } catch (ResourceClosedException | VerbsException e) {
                return null;
            }
        });
    }

    /** A new reader: one per meter that takes its value from this snapshot. */
    synchronized int reader() {
        return readers++;
    }

    /** The snapshot for {@code reader}: the current one, or a fresh one if this reader already had the current one. */
    synchronized @Nullable T valueFor(int reader) {
        if (!read || served.get(reader)) {
            current = source.get();
            read = true;
            served.clear();
        }
        served.set(reader);
        return current;
    }
}
