package io.rdma.sample;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample's own settings, {@code sample.*}, checked as the starter checks {@code rdma.*}: a
 * key the sample does not know fails the start ("left unbound", with its name), and so does a
 * value it cannot work with, naming the property, the value and what it must be. Boot's failure
 * analysis prints both.
 *
 * @param echo the echo client's
 * @param kv   the key-value store's
 * @param load the background traffic's
 */
@ConfigurationProperties(prefix = "sample", ignoreUnknownFields = false)
record SampleProperties(@DefaultValue Echo echo, @DefaultValue Kv kv, @DefaultValue Load load) {

    /** @param timeout how long {@code GET /echo} waits for its reply; then 504, and the request is forgotten */
    record Echo(@DefaultValue("5s") Duration timeout) {

        Echo {
            positive("sample.echo.timeout", timeout);
        }
    }

    /**
     * @param timeout        how long a GET, PUT or DELETE may retry (torn reads, held buckets); then 504
     * @param slotsPerBucket slots a key may take in its bucket: the probing bound
     * @param lease          how long a lock seen held unchanged is left to its holder before it is
     *                       taken over; unset: three times the timeout
     */
    record Kv(@DefaultValue("5s") Duration timeout, @DefaultValue("4") int slotsPerBucket, @Nullable Duration lease) {

        Kv {
            positive("sample.kv.timeout", timeout);
            if (slotsPerBucket < 1) {
                throw new IllegalArgumentException("sample.kv.slots-per-bucket is " + slotsPerBucket
                        + ": a bucket needs at least one slot (4 unless set; each slot takes an equal share of the"
                        + " kv-store pool's buffer-size)");
            }
            if (lease != null) {
                positive("sample.kv.lease", lease);
            }
        }

        /** How long a lock seen held unchanged is left to its holder. */
        Duration leaseOrDefault() {
            return lease != null ? lease : timeout.multipliedBy(3);
        }
    }

    /**
     * @param enabled whether background traffic runs
     * @param workers the virtual threads making it
     * @param keys    the keys they spread over
     * @param pause   between one worker's rounds
     */
    record Load(@DefaultValue("false") boolean enabled, @DefaultValue("4") int workers, @DefaultValue("64") int keys,
                @DefaultValue("20ms") Duration pause) {

        Load {
            if (workers < 1 || keys < 1) {
                throw new IllegalArgumentException("sample.load.workers (" + workers + ") and sample.load.keys (" + keys
                        + ") must be at least 1; to run no background traffic, leave sample.load.enabled false");
            }
            if (pause.isNegative()) {
                throw new IllegalArgumentException("sample.load.pause is " + pause + ": a pause is 0 or longer");
            }
        }
    }

    private static void positive(String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " is " + value + ": it must be longer than 0 (e.g. 5s)");
        }
    }
}
