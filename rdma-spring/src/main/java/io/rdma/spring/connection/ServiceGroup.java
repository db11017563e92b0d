package io.rdma.spring.connection;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The connected instances of a discovered service, addressed as a group: the names their queue
 * pairs go by in the {@code RdmaTemplate} ({@code <connection>@<instance id>}, or the declared
 * queue pair's name for a connection to one instance at a time), to send to one in turn, to all,
 * or to the one a key maps to. The group follows the instances: each call sees the ones connected
 * at that moment.
 *
 * <pre>{@code
 * ServiceGroup kv = connections.group("kv");
 * template.send(kv.forKey(key), request);                 // the connected instance the key maps to
 * template.read(kv.ownerOf(key), remote, length);          // the instance that holds the key, connected or not
 * kv.all().forEach(instance -> template.send(instance, invalidation));
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class ServiceGroup {

    private final String connection;
    private final String service;
    private final Supplier<List<String>> connected;
    private final Supplier<List<String>> followed;
    private final AtomicInteger turn = new AtomicInteger();

    /**
     * @param connected the queue pairs of the instances connected now
     * @param followed  the queue pairs of every instance the connection follows (listed by
     *                  discovery), connected or reconnecting
     */
    ServiceGroup(String connection, String service, Supplier<List<String>> connected, Supplier<List<String>> followed) {
        this.connection = connection;
        this.service = service;
        this.connected = connected;
        this.followed = followed;
    }

    /** Every connected instance's queue pair, sorted by name; empty while none is connected. */
    public List<String> all() {
        return connected.get();
    }

    /**
     * One connected instance's queue pair, each in turn.
     *
     * @throws NoServiceInstanceException when no instance is connected
     */
    public String any() {
        List<String> instances = nonEmpty(connected);
        return instances.get(Math.floorMod(turn.getAndIncrement(), instances.size()));
    }

    /**
     * The connected instance {@code key} maps to, by rendezvous hashing: a key keeps its instance
     * while that instance stays connected, and when one leaves only its keys move, spread over
     * the others.
     *
     * @throws NoServiceInstanceException when no instance is connected
     */
    public String forKey(Object key) {
        return highestWeight(key.hashCode(), nonEmpty(connected));
    }

    /**
     * The instance {@code key} maps to among every instance the connection follows, connected or
     * not, by the same rendezvous hashing as {@link #forKey}. A key whose instance is reconnecting
     * (its connection failed: a dead peer, a link down, a partition) stays with it, and what is
     * sent to it fails at once ({@code RdmaChannelDownException}) until it is back: what a store
     * that keeps each key on one instance needs, as {@code forKey} would move the key to another
     * instance meanwhile, where a write made before is missing and, once the first is back, a write
     * made meanwhile is. The key moves only when its instance leaves the service.
     *
     * @throws NoServiceInstanceException when the connection has no instance's queue pair (none is listed)
     */
    public String ownerOf(Object key) {
        return highestWeight(key.hashCode(), nonEmpty(followed));
    }

    private List<String> nonEmpty(Supplier<List<String>> source) {
        List<String> instances = source.get();
        if (instances.isEmpty()) {
            throw new NoServiceInstanceException(connection, service);
        }
        return instances;
    }

    private static String highestWeight(int key, Collection<String> instances) {
        String chosen = null;
        long best = Long.MIN_VALUE;
        for (String instance : instances) {
            long weight = mix(((long) key << 32) ^ (instance.hashCode() & 0xffffffffL));
            if (chosen == null || weight > best) {
                best = weight;
                chosen = instance;
            }
        }
        return Objects.requireNonNull(chosen); // instances is not empty (nonEmpty)
    }

    /** MurmurHash3's 64-bit finalizer: spreads every input bit over the whole weight. */
    private static long mix(long value) {
        long h = value;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
