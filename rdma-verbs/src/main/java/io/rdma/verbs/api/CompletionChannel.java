package io.rdma.verbs.api;

import io.rdma.verbs.spi.ChannelHandle;
import io.rdma.verbs.spi.CqHandle;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

/**
 * {@code struct ibv_comp_channel} (verbs manual §5.1): where armed CQs signal their next completion.
 *
 * <p>Closing it first closes the CQs created with it (and the QPs using those); libibverbs'
 * {@code ibv_destroy_comp_channel} refuses while a CQ uses the channel, which is why the verbs
 * manual (§11.3) destroys CQs before channels.
 *
 * <p>Thread-safe: concurrent waiters take turns, and each event goes to one of them. A close
 * may come from any thread while others wait: it wakes them (they throw
 * {@link ResourceClosedException}) and destroys the channel once the last has left it.
 */
public final class CompletionChannel extends VerbsResource {

    private final ChannelHandle handle;
    /**
     * Waiters hold it shared for as long as they are inside the provider's wait, the destroy
     * exclusively: {@code ibv_destroy_comp_channel} closes the fd a waiter polls and frees what
     * it reads, so it must not run under one. The close first wakes the waiters
     * ({@link ChannelHandle#shutdown()}), so it never waits out their timeouts.
     */
    private final UseGuard waiters = new UseGuard(this);
    /**
     * Set when the close begins: a wait it ended, or one that starts after, is refused. It stays
     * set should the provider refuse the destroy, as the provider's waits are over for good.
     */
    private volatile boolean closing;

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
     * @throws ResourceClosedException when the channel is closed, or is closed by another thread
     *         while this one waits: the close wakes the wait (at once on the simulated fabric,
     *         within one 100 ms poll slice on a device) rather than wait out its timeout
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Optional<CompletionQueue> awaitEvent(Duration timeout) throws InterruptedException {
        Lock waiting = waiters.shared();
        waiting.lockInterruptibly();
        try {
            refuseIfClosing();
            CqHandle signalled = handle.awaitEvent(timeout.toNanos());
            if (signalled == null) {
                refuseIfClosing();
                return Optional.empty();
            }
            // acknowledged even when a close overtook the wait: ibv_destroy_cq waits for it
            signalled.acknowledgeEvents(1);
            refuseIfClosing();
            return Optional.ofNullable((CompletionQueue) context().resourceFor(signalled));
        } finally {
            waiting.unlock();
        }
    }

    private void refuseIfClosing() {
        if (closing) {
            throw new ResourceClosedException(toString());
        }
    }

    ChannelHandle channelHandle() {
        return handle;
    }


    @Override
    void destroyHandle() {
        closing = true;
        handle.shutdown();
        waiters.destroy(handle::destroy);
    }

    @Override
    String describe() {
        return "completion channel on " + context().deviceName();
    }
}
