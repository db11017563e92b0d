package io.rdma.verbs.api;

import io.rdma.verbs.spi.ChannelHandle;
import io.rdma.verbs.spi.CqHandle;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code struct ibv_comp_channel} (verbs manual §5.1): where armed CQs signal their next completion.
 *
 * <p>Closing it first closes the CQs created with it (and the QPs using those); libibverbs'
 * {@code ibv_destroy_comp_channel} refuses while a CQ uses the channel, which is why the verbs
 * manual (§11.3) destroys CQs before channels.
 *
 * <p>Thread-safe: concurrent waiters take turns, and each event goes to one of them.
 */
public final class CompletionChannel extends VerbsResource {

    private final ChannelHandle handle;

    CompletionChannel(DeviceContext context, ChannelHandle handle) {
        super(ResourceKind.COMPLETION_CHANNEL, context, handle, List.of(context));
        this.handle = handle;
    }

    /**
     * {@code ibv_get_cq_event} with a timeout: the CQ whose event arrived, already acknowledged
     * ({@code ibv_ack_cq_events}), or empty when {@code timeout} passed first. Re-arm the CQ
     * before polling it (verbs manual §5.4).
     *
     * @throws VerbsException the errno {@code ibv_get_cq_event} fails with
     * @throws ResourceClosedException when the channel is closed
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Optional<CompletionQueue> awaitEvent(Duration timeout) throws InterruptedException {
        ensureOpen();
        CqHandle signalled = handle.awaitEvent(timeout.toNanos());
        if (signalled == null) {
            return Optional.empty();
        }
        signalled.acknowledgeEvents(1);
        return Optional.ofNullable((CompletionQueue) context().resourceFor(signalled));
    }

    ChannelHandle channelHandle() {
        return handle;
    }


    @Override
    void destroyHandle() {
        handle.destroy();
    }

    @Override
    String describe() {
        return "completion channel on " + context().deviceName();
    }
}
