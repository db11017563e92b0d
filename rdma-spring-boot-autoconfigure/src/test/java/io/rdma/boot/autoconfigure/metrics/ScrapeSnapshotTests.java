package io.rdma.boot.autoconfigure.metrics;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Meters sharing a snapshot read the source once per scrape, and never see a value older than their last. */
class ScrapeSnapshotTests {

    private final AtomicInteger reads = new AtomicInteger();
    private final ScrapeSnapshot<Integer> snapshot = new ScrapeSnapshot<>(reads::incrementAndGet);

    @Test
    void oneScrapeOfEveryReaderReadsTheSourceOnce() {
        int first = snapshot.reader();
        int second = snapshot.reader();
        int third = snapshot.reader();
        assertThat(snapshot.valueFor(first)).isEqualTo(1);
        assertThat(snapshot.valueFor(third)).isEqualTo(1);
        assertThat(snapshot.valueFor(second)).isEqualTo(1);
        // the next scrape, in another order
        assertThat(snapshot.valueFor(second)).isEqualTo(2);
        assertThat(snapshot.valueFor(first)).isEqualTo(2);
        assertThat(snapshot.valueFor(third)).isEqualTo(2);
        assertThat(reads).hasValue(2);
    }

    @Test
    void aReaderAskingAgainGetsAFreshRead() {
        int only = snapshot.reader();
        assertThat(snapshot.valueFor(only)).isEqualTo(1);
        assertThat(snapshot.valueFor(only)).isEqualTo(2);
    }
}
