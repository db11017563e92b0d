package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.AddressHandleResolver;
import io.rdma.verbs.spi.CompletionCounterHandle;
import io.rdma.verbs.spi.CountersHandle;
import io.rdma.verbs.spi.FlowHandle;
import io.rdma.verbs.spi.QpHandle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * A queue pair: the handle the API calls. It holds the QP's state and queues, and composes
 * the jobs behind them: {@link QpTransitions} and {@link QpAttributes} for
 * {@code ibv_modify_qp}, {@link SendPosting} for {@code ibv_post_send}, a {@link QpTransport}
 * that runs the send queue, the {@link Responder} that takes what other QPs send, and the
 * {@link CompletionDelivery} of completions, counters and flushes.
 */
final class SimulatedQp implements QpHandle {

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SimulatedQp.class, "state", QueuePairState.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final SimulatedPd pd;
    final SimulatedFabric fabric;
    final QueuePairType type;
    final @Nullable SimulatedSrq srq;
    private final QueuePairCapabilities capabilities;
    private final int qpNumber;
    final ReceiveQueue receiveQueue;
    final PendingSends pending;
    private final ReentrantLock sendLock = new DataPathLock();
    final QpAttributes attributes = new QpAttributes();
    final CompletionDelivery completions;
    private final SendPosting posting;
    private final QpTransport transport;
    final Responder responder = new Responder(this);

    private volatile QueuePairState state = QueuePairState.RESET;
    private volatile boolean destroyed;

    SimulatedQp(SimulatedPd pd, QueuePairType type, SimulatedCq sendCq, SimulatedCq recvCq, @Nullable SimulatedSrq srq,
                QueuePairCapabilities capabilities, boolean signalAll) {
        this.pd = pd;
        this.fabric = pd.device().fabric();
        this.type = type;
        this.srq = srq;
        this.capabilities = srq == null ? capabilities : new QueuePairCapabilities(capabilities.maxSendWr(), 0,
                capabilities.maxSendSge(), 0, capabilities.maxInlineData());
        this.receiveQueue = srq != null ? srq.queue()
                : new ReceiveQueue(capabilities.maxRecvWr(), capabilities.maxRecvSge(), null, 0);
        this.pending = new PendingSends(capabilities.maxSendWr(), capabilities.maxSendSge(),
                capabilities.maxInlineData());
        this.completions = new CompletionDelivery(this, sendCq, recvCq, signalAll);
        this.posting = new SendPosting(this, DatagramTransport.rawFrameCapacity(pd.device()));
        this.transport = QpTransport.of(this);
        this.qpNumber = fabric.queuePairs().add(this);
    }

    SimulatedDevice device() {
        return pd.device();
    }

    @Override
    public int qpNumber() {
        return qpNumber;
    }

    @Override
    public QueuePairCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public QueuePairState state() {
        return state;
    }

    boolean acceptsIncoming() {
        QueuePairState current = state;
        return current == QueuePairState.RTR || current == QueuePairState.RTS || current == QueuePairState.SQD;
    }

    // ---------------------------------------------------------------- state

    @Override
    public void modify(QueuePairAttributes changes) {
        sendLock.lock();
        try {
            pd.device().checkInjected("ibv_modify_qp");
            QueuePairState from = state;
            QpTransitions.check(type, from, changes);
            attributes.apply(changes, type, pd.device());
            QueuePairState to = changes.state() == null ? from : changes.state();
            if (to == QueuePairState.RESET) {
                STATE.setVolatile(this, QueuePairState.RESET);
                pending.clear();
                if (srq == null) {
                    receiveQueue.clear();
                }
            } else if (to == QueuePairState.ERR) {
                enterError();
            } else {
                STATE.setVolatile(this, to);
                if (to == QueuePairState.RTS) {
                    transport.progress();
                } else if (to == QueuePairState.SQD && from != QueuePairState.SQD && pending.isEmpty()) {
                    pd.context().raise(AsyncEventType.SQ_DRAINED, this, 0);
                }
            }
        } finally {
            sendLock.unlock();
        }
    }

    @Override
    public QueuePairAttributes query() {
        sendLock.lock();
        try {
            return attributes.query(state);
        } finally {
            sendLock.unlock();
        }
    }

    /** A fault outside this QP's own send path put it in ERR: flush on the event thread, never inline. */
    void failFromFabric(@Nullable AsyncEventType event) {
        while (true) {
            QueuePairState current = state;
            if (current == QueuePairState.ERR || current == QueuePairState.RESET) {
                return;
            }
            if (STATE.compareAndSet(this, current, QueuePairState.ERR)) {
                break;
            }
        }
        if (event != null) {
            pd.context().raise(event, this, 0);
        }
        fabric.defer(() -> {
            sendLock.lock();
            try {
                // Only while still in ERR: the application may have reset and reconnected the QP
                // before this ran, and its new receives must not be flushed.
                if (!destroyed && state == QueuePairState.ERR) {
                    completions.flushAll();
                }
            } finally {
                sendLock.unlock();
            }
        });
    }

    /** Puts the QP in ERR from its own send path and completes everything outstanding. Send lock held. */
    void enterError() {
        STATE.setVolatile(this, QueuePairState.ERR);
        completions.flushAll();
    }

    // ---------------------------------------------------------------- posting

    @Override
    public void postSend(SendWorkRequest first, AddressHandleResolver addressHandles) {
        PublishBatch batch = PublishBatch.open();
        sendLock.lock();
        try {
            QueuePairState current = state;
            VerbsException refused = posting.admit(first, current, addressHandles);
            if (current == QueuePairState.ERR) {
                completions.flushPendingSends();
            }
            // What was posted runs at once, as a doorbell starts the device on everything posted,
            // the WRs before a refused one included.
            transport.progress();
            if (refused != null) {
                throw refused;
            }
        } finally {
            sendLock.unlock();
            batch.close();
        }
    }

    @Override
    public void postReceive(ReceiveWorkRequest first) {
        QueuePairState current = state;
        if (current == QueuePairState.RESET) {
            throw new VerbsException("ibv_post_recv", Errno.EINVAL, "QP 0x" + Integer.toHexString(qpNumber)
                    + " is in RESET", "move it to INIT first (receives may be posted from INIT on)")
                    .withBadWorkRequest(first.wrId());
        }
        VerbsException refused = receiveQueue.post(first, "ibv_post_recv");
        if (current == QueuePairState.ERR) {
            completions.flushReceives();
        }
        if (refused != null) {
            throw refused;
        }
    }

    /**
     * A receive was posted at a responder this QP waits on, or a retry timer fired. Its
     * completions are published at the end, as a post's are: a WR that runs out of retries
     * completes in error before the QP enters ERR, and whoever polls that completion must find
     * the QP in ERR already.
     */
    void resumeSends() {
        PublishBatch batch = PublishBatch.open();
        sendLock.lock();
        try {
            if (!destroyed && state == QueuePairState.RTS) {
                transport.progress();
            }
        } finally {
            sendLock.unlock();
            batch.close();
        }
    }

    // ---------------------------------------------------------------- counters and flows

    @Override
    public void attachCompletionCounter(CompletionCounterHandle counter, int opMask) {
        sendLock.lock();
        try {
            QueuePairState current = state;
            if (current != QueuePairState.RESET && current != QueuePairState.INIT) {
                throw Failures.invalid("ibv_qp_attach_comp_cntr", "QP 0x" + Integer.toHexString(qpNumber) + " is in "
                        + current, "attach completion counters while the QP is in RESET or INIT");
            }
            completions.attach(counter, opMask);
        } finally {
            sendLock.unlock();
        }
    }

    @Override
    public FlowHandle createFlow(FlowSpec spec, @Nullable CountersHandle counters) {
        if (type != QueuePairType.RAW_PACKET && type != QueuePairType.UD) {
            throw Failures.invalid("ibv_create_flow", "flows steer to RAW_PACKET or UD QPs, not " + type);
        }
        SimulatedPort flowPort = pd.device().port(spec.port());
        if (type == QueuePairType.RAW_PACKET && !flowPort.isEthernet()) {
            throw Failures.invalid("ibv_create_flow", "port " + spec.port() + " is not Ethernet");
        }
        pd.device().checkInjected("ibv_create_flow");
        return new SimulatedFlow(this, flowPort, spec, (SimulatedCounters) counters);
    }

    // ---------------------------------------------------------------- destroy

    @Override
    public void destroy() {
        sendLock.lock();
        try {
            completions.flushAll();
            destroyed = true;
            transport.withdraw();
            STATE.setVolatile(this, QueuePairState.RESET);
            fabric.queuePairs().remove(qpNumber);
            completions.detachAll();
            pd.device().release(ResourceKind.QUEUE_PAIR);
        } finally {
            sendLock.unlock();
        }
    }
}
