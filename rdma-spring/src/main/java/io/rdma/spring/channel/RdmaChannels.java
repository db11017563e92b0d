package io.rdma.spring.channel;

import io.rdma.spring.naming.UnknownRdmaNameException;
import io.rdma.spring.resource.ConnectionPlan;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.QueuePair;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The registry of channels. Every declared queue pair is a channel from the start: UP, unless a
 * declared connection brings it up (then DOWN until it does). Queue pairs made from prototypes
 * are {@link #open opened} as channels by whoever made them, {@link #renew renewed} on a fresh
 * queue pair when their connection is made again, and {@link #close closed} before they are
 * destroyed. Changes are told to the followers of the channel's source and to those of every
 * channel, in order: a change and its notification happen under one lock, so a follower that
 * registers meanwhile sees the channel either in its new state or through the notification,
 * never both or neither.
 */
public final class RdmaChannels {

    private static final Log logger = LogFactory.getLog(RdmaChannels.class);
    /** Where the names of channels come from, as an unknown name's failure says. */
    private static final String WHERE_DECLARED = "rdma.devices.<device>.protection-domains.<pd>.queue-pairs (a declared"
            + " queue pair), or as <listener>#<n> and <connection>@<instance> for the peers of"
            + " rdma.connections.listeners and the instances of rdma.connections.outbound services";

    private final RdmaResources resources;
    private final Map<String, RdmaChannel> channels = new ConcurrentHashMap<>();
    private final Map<String, List<ChannelFollower>> followersBySource = new ConcurrentHashMap<>();
    private final List<ChannelFollower> followersOfAll = new CopyOnWriteArrayList<>();
    private final Object changes = new Object();

    public RdmaChannels(RdmaResources resources) {
        this.resources = resources;
        ConnectionPlan connections = resources.connections();
        for (RdmaResources.Named<QueuePair> declared : resources.resources(QueuePair.class)) {
            String name = declared.name();
            boolean broughtUp = connections.outbound().stream().anyMatch(plan -> plan.queuePair().equals(name))
                    || connections.listeners().stream().anyMatch(plan -> name.equals(plan.queuePair()))
                    || connections.services().stream().anyMatch(plan -> name.equals(plan.queuePair()));
            channels.put(name, new RdmaChannel(name, name, name, declared.resource(), pool(name),
                    resources.sendTimeout(name), 1, broughtUp ? ChannelState.DOWN : ChannelState.UP));
        }
    }

    /** The channel named {@code name}, or null when there is none (now). */
    public @Nullable RdmaChannel get(String name) {
        return channels.get(name);
    }

    /**
     * The channel named {@code name}, which {@code site} (an annotation attribute and its method,
     * or a call) names.
     *
     * @throws UnknownRdmaNameException naming the site, the nearest name and the channels there are,
     *                                  when none has that name
     */
    public RdmaChannel channel(String name, String site) {
        RdmaChannel channel = channels.get(name);
        if (channel == null) {
            throw unknown(name, site);
        }
        return channel;
    }

    /**
     * The listener or service connection whose peers or instances have channels named like
     * {@code name}, which may be there or not, depending on them; null for any other name.
     */
    public @Nullable String connectionNamingChannel(String name) {
        return resources.connections().connectionNamingChannel(name);
    }

    /** The failure of {@code site}, which names channel {@code name}, which there is not. */
    public UnknownRdmaNameException unknown(String name, String site) {
        return new UnknownRdmaNameException("channel", name, site, channels.keySet(), WHERE_DECLARED);
    }

    /** The names of the channels there are now, sorted. */
    public Set<String> names() {
        return new TreeSet<>(channels.keySet());
    }

    /** The channels of {@code source} there are now. */
    public List<RdmaChannel> channelsOf(String source) {
        return channels.values().stream().filter(channel -> channel.source().equals(source)).toList();
    }

    /** Tells {@code follower} of every change of the channels of {@code source}, and now of those already UP. */
    public void follow(String source, ChannelFollower follower) {
        synchronized (changes) {
            followersBySource.computeIfAbsent(source, key -> new CopyOnWriteArrayList<>()).add(follower);
            channels.values().stream().filter(channel -> channel.source().equals(source)
                    && channel.state() == ChannelState.UP).forEach(channel -> tellSafely(follower, channel, RdmaChannels::tell));
        }
    }

    /** Tells {@code follower} of every change of every channel from now on. */
    public void followAll(ChannelFollower follower) {
        followersOfAll.add(follower);
    }

    /**
     * Makes {@code queuePair}, made from prototype {@code declaration} for a peer or an instance of
     * {@code source}, channel {@code name}, DOWN until {@link #up}. It shares the prototype's pool
     * with as many channels as the listeners and service connections using the prototype may
     * connect at once.
     *
     * @throws IllegalStateException when a channel of that name exists
     */
    public RdmaChannel open(String name, String source, QueuePair queuePair, String declaration) {
        int poolSharers = resources.connections().peersPerPrototype().getOrDefault(declaration, 1);
        RdmaChannel channel = new RdmaChannel(name, source, declaration, queuePair, pool(declaration),
                resources.sendTimeout(declaration), poolSharers, ChannelState.DOWN);
        if (channels.putIfAbsent(name, channel) != null) {
            throw new IllegalStateException("channel '" + name + "' is open already");
        }
        return channel;
    }

    /**
     * Channel {@code name}'s queue pair is in INIT and about to be connected: its followers may post
     * receives now ({@link ChannelFollower#connecting}); it stays DOWN until {@link #up}.
     */
    public void connecting(String name) {
        synchronized (changes) {
            RdmaChannel channel = existing(name);
            channel.connecting();
            tellAll(channel, ChannelFollower::connecting);
        }
    }

    /** Channel {@code name} is connected to {@code remote}. */
    public void up(String name, InetSocketAddress remote) {
        change(name, ChannelState.UP, remote, null);
    }

    /** Channel {@code name} was flushed and is about to be reset, because of {@code cause}. */
    public void down(String name, String cause) {
        change(name, ChannelState.DOWN, null, cause);
    }

    /**
     * Channel {@code name} was flushed and is about to be closed, because of {@code cause}; its
     * name finds nothing from now on. Closing a channel that is not open does nothing.
     */
    public void close(String name, String cause) {
        synchronized (changes) {
            RdmaChannel channel = channels.remove(name);
            if (channel != null) {
                channel.moveTo(ChannelState.GONE, null, cause);
                tellAll(channel, RdmaChannels::tell);
            }
        }
    }

    /**
     * Channel {@code name}, DOWN and flushed, goes on {@code fresh}, a new queue pair of the same
     * declaration, for its next connection: its followers are told that the channel on the old
     * queue pair is gone (what they keep for it goes with it) and the name finds the successor,
     * DOWN, from now on, with no moment where it finds nothing.
     */
    public RdmaChannel renew(String name, QueuePair fresh) {
        synchronized (changes) {
            RdmaChannel used = existing(name);
            RdmaChannel successor = used.renewedOn(fresh);
            channels.put(name, successor);
            used.moveTo(ChannelState.GONE, null, null);
            tellAll(used, RdmaChannels::tell);
            return successor;
        }
    }

    private void change(String name, ChannelState next, @Nullable InetSocketAddress remote, @Nullable String cause) {
        synchronized (changes) {
            RdmaChannel channel = existing(name);
            channel.moveTo(next, remote, cause);
            tellAll(channel, RdmaChannels::tell);
        }
    }

    /** Channel {@code name}, which a connection changes and so must be open. */
    private RdmaChannel existing(String name) {
        RdmaChannel channel = channels.get(name);
        if (channel == null) {
            throw new IllegalStateException("channel '" + name + "' is not open");
        }
        return channel;
    }

    /** Gives {@code notice} of {@code channel} to every follower of all channels, then to those of its source. */
    private void tellAll(RdmaChannel channel, BiConsumer<ChannelFollower, RdmaChannel> notice) {
        followersOfAll.forEach(follower -> tellSafely(follower, channel, notice));
        followersBySource.getOrDefault(channel.source(), List.of())
                .forEach(follower -> tellSafely(follower, channel, notice));
    }

    /** A failing follower is logged: it must not keep the others, or the connection, from going on. */
    private static void tellSafely(ChannelFollower follower, RdmaChannel channel,
                                   BiConsumer<ChannelFollower, RdmaChannel> notice) {
        try {
            notice.accept(follower, channel);
        } catch (RuntimeException e) {
            logger.error("A follower of RDMA " + channel + " failed", e);
        }
    }

    /** Tells {@code follower} of the state {@code channel} is in now. */
    private static void tell(ChannelFollower follower, RdmaChannel channel) {
        switch (channel.state()) {
            case UP -> follower.up(channel);
            case DOWN -> follower.down(channel);
            case GONE -> follower.gone(channel);
        }
    }

    private @Nullable MemoryPool pool(String declaration) {
        String pool = resources.queuePairAddress(declaration).memoryPool();
        return pool == null ? null : (MemoryPool) resources.resource(pool).orElseThrow().resource();
    }
}
