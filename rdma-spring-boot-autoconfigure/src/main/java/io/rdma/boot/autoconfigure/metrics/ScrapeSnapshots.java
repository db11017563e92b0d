package io.rdma.boot.autoconfigure.metrics;

import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.VerbsResource;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The {@link ScrapeSnapshot}s of one binder. It makes them read nothing once their resource is
 * closed or a read fails (their meters then show NaN, rather than the scrape failing), and keeps
 * them: Micrometer holds a meter's state object weakly, so the snapshots live as long as their
 * binder.
 */
final class ScrapeSnapshots {

    private final List<ScrapeSnapshot<?>> kept = new CopyOnWriteArrayList<>();

    /** A snapshot of what {@code read} reads from {@code owner}, in one go per scrape. */
    <T> ScrapeSnapshot<T> of(VerbsResource owner, Supplier<T> read) {
        return of(() -> {
            try {
                return owner.isClosed() ? null : read.get();
            } catch (ResourceClosedException | VerbsException e) {
                return null;
            }
        });
    }

    /** A snapshot of what {@code read} reads, in one go per scrape; it returns null when there is nothing to read. */
    <T> ScrapeSnapshot<T> of(Supplier<@Nullable T> read) {
        ScrapeSnapshot<T> snapshot = new ScrapeSnapshot<>(read);
        kept.add(snapshot);
        return snapshot;
    }
}
