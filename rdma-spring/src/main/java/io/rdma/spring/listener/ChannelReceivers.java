package io.rdma.spring.listener;

import io.rdma.spring.channel.ChannelFollower;
import io.rdma.spring.channel.ChannelReplies;
import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionRouter;
import io.rdma.verbs.api.MemoryPool;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The receiving side of every channel that has a listener or awaits replies: one
 * {@link ReceiveContainer} per channel, made when a listener or the template first needs it, and
 * kept in step with the channel: filled when its connection is being made (its queue pair in INIT,
 * before the peer can send) or it comes up, emptied (its buffers back in the pool)
 * when it goes down, forgotten when it is gone. A channel that neither a listener nor a request
 * uses gets no receives from here: its queue pair is the application's to post to.
 */
public final class ChannelReceivers implements ChannelReplies {

    private final CompletionRouter router;
    private final Map<String, ReceiveContainer> containers = new ConcurrentHashMap<>();
    private final LongAdder unhandled = new LongAdder();

    public ChannelReceivers(RdmaChannels channels, CompletionRouter router) {
        this.router = router;
        channels.followAll(new ChannelFollower() {
            @Override
            public void connecting(RdmaChannel channel) {
                up(channel); // filled before the handshake, so the peer's first messages find receives
            }

            @Override
            public void up(RdmaChannel channel) {
                ReceiveContainer container = containerOf(channel);
                if (container != null) {
                    container.start();
                }
            }

            @Override
            public void down(RdmaChannel channel) {
                ReceiveContainer container = containerOf(channel);
                if (container != null) {
                    container.stop();
                }
            }

            @Override
            public void gone(RdmaChannel channel) {
                ReceiveContainer container = containerOf(channel);
                // the name may find the channel's successor on a fresh queue pair already (RdmaChannels.renew)
                if (container != null && containers.remove(channel.name(), container)) {
                    container.stop();
                }
            }
        });
    }

    /** {@code channel}'s container, or null when it has none (one there for the name is another channel's). */
    private @Nullable ReceiveContainer containerOf(RdmaChannel channel) {
        ReceiveContainer container = containers.get(channel.name());
        return container != null && container.channel() == channel ? container : null;
    }

    /** Messages received on {@code channel} that are not replies go to {@code invoker}. */
    void listen(RdmaChannel channel, ListenerInvoker invoker) {
        containerFor(channel, container -> container.listener(invoker));
    }

    @Override
    public void receiveReplies(RdmaChannel channel, ReplySink sink) {
        containerFor(channel, container -> container.replies(sink));
    }

    /** Messages that came on a channel whose receives are posted here, and that neither a listener nor a request took. */
    public long unhandledMessages() {
        return unhandled.sum();
    }

    /**
     * The channel's container, made on first use, given its receiver by {@code setup}, and then, if
     * the channel is up or connecting, filled: a message that arrives finds whom it is for. Made under the map's
     * lock for the name, so a channel gets one container however many ask at once; the state is
     * read after the container is in the map, so a channel that comes up meanwhile is filled either
     * here or by the follower (filling twice does nothing more).
     */
    private void containerFor(RdmaChannel channel, Consumer<ReceiveContainer> setup) {
        ReceiveContainer container = containers.compute(channel.name(), (name, existing) -> {
            if (existing != null && existing.channel() == channel) {
                return existing;
            }
            MemoryPool pool = channel.memoryPool();
            if (pool == null) {
                throw new IllegalStateException("queue pair '" + channel.declaration() + "' has no memory pool to"
                        + " receive into; set its memory-pool property");
            }
            return new ReceiveContainer(channel, pool, unhandled, router);
        });
        setup.accept(container);
        if (channel.state() == ChannelState.UP || channel.isConnecting()) {
            container.start();
        }
    }
}
