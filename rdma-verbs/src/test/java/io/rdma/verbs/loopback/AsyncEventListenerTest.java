package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AsyncEvent;
import io.rdma.verbs.api.AsyncEventListener;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.SharedReceiveQueue;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Async events reach every registered listener, mapped back to the resource they concern; a
 * removed listener hears nothing more, and a failing listener does not silence the others.
 * The SRQ limit event is the trigger, since every device raises it.
 */
class AsyncEventListenerTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void registeredListenersHearTheEventAndRemovedOnesDoNot() throws InterruptedException {
        BlockingQueue<AsyncEvent> heard = new LinkedBlockingQueue<>();
        List<AsyncEvent> removedHeard = new CopyOnWriteArrayList<>();
        AsyncEventListener failing = event -> {
            throw new IllegalStateException("a listener that fails on every event");
        };
        AsyncEventListener removed = removedHeard::add;
        fabric.context().addAsyncEventListener(failing);
        fabric.context().addAsyncEventListener(removed);
        fabric.context().addAsyncEventListener(heard::add);
        fabric.context().removeAsyncEventListener(removed);

        SharedReceiveQueue srq = reachSrqLimit();

        AsyncEvent event = heard.poll(LoopbackFabric.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(event).as("event heard by the listener registered after a failing one").isNotNull();
        assertThat(event.type()).isEqualTo(AsyncEventType.SRQ_LIMIT_REACHED);
        assertThat(event.resource()).isSameAs(srq);
        assertThat(removedHeard).as("listeners run in order, so the removed one would have heard it by now").isEmpty();
    }

    /** Arms a limit of 2 on an SRQ holding 2 receives, then consumes one. */
    private SharedReceiveQueue reachSrqLimit() {
        SharedReceiveQueue srq = fabric.pd().createSharedReceiveQueue(SharedReceiveQueueAttributes.of(8, 0));
        QueuePair requester = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(16), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        QueuePair responder = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(16), srq,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        fabric.connect(requester, responder, fabric.connectOptions());
        MemoryRegion buffer = fabric.region(64);
        srq.postReceive(new ReceiveWorkRequest().wrId(1).addSge(buffer, 0, 64));
        srq.postReceive(new ReceiveWorkRequest().wrId(2).addSge(buffer, 0, 64));
        srq.armLimit(2);
        requester.postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(buffer, 0, 8));
        Completions.awaitOne(responder.receiveCompletionQueue());
        return srq;
    }
}
