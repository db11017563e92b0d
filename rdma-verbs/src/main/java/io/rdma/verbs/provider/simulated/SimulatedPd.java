package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.GlobalRoute;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.spi.AhHandle;
import io.rdma.verbs.spi.CqHandle;
import io.rdma.verbs.spi.MrHandle;
import io.rdma.verbs.spi.PdHandle;
import io.rdma.verbs.spi.QpHandle;
import io.rdma.verbs.spi.SrqHandle;

import java.lang.foreign.MemorySegment;

import org.jspecify.annotations.Nullable;

/** A protection domain: memory, QPs, SRQs and AHs of one PD may work together, no others. */
final class SimulatedPd implements PdHandle {

    private final SimulatedContext context;

    SimulatedPd(SimulatedContext context) {
        this.context = context;
    }

    SimulatedContext context() {
        return context;
    }

    SimulatedDevice device() {
        return context.device();
    }

    @Override
    public MrHandle registerMemory(MemorySegment memory, int accessMask) {
        DeviceSpec spec = device().spec();
        if (Long.compareUnsigned(memory.byteSize(), spec.maxMrSize()) > 0) {
            throw Failures.aboveLimit("ibv_reg_mr", "length", memory.byteSize(), spec.maxMrSize());
        }
        boolean needsLocalWrite = AccessFlag.isSet(accessMask, AccessFlag.REMOTE_WRITE)
                || AccessFlag.isSet(accessMask, AccessFlag.REMOTE_ATOMIC);
        if (needsLocalWrite && !AccessFlag.isSet(accessMask, AccessFlag.LOCAL_WRITE)) {
            throw Failures.invalid("ibv_reg_mr", "REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE",
                    "add LOCAL_WRITE to the access flags");
        }
        if (!memory.isNative()) {
            throw Failures.invalid("ibv_reg_mr", "only native memory can be registered",
                    "allocate the buffer from an Arena (or use ProtectionDomain.allocateMemory)");
        }
        device().reserve(ResourceKind.MEMORY_REGION, spec.maxMr(), "ibv_reg_mr", "memory regions");
        return new SimulatedMr(this, memory, accessMask);
    }

    @Override
    public QpHandle createQueuePair(QueuePairType type, CqHandle sendCq, CqHandle recvCq, @Nullable SrqHandle srq,
                                    QueuePairCapabilities capabilities, boolean signalAll) {
        DeviceSpec spec = device().spec();
        if (spec.transport() == TransportType.IWARP && type != QueuePairType.RC) {
            // siw_create_qp refuses every other type ("only RC QP's supported") before it looks at the sizes
            throw Failures.unsupported("ibv_create_qp", device().name() + " is iWARP, which has RC QPs only, not "
                    + type, "use an RC QP, or a device of the InfiniBand transport for " + type);
        }
        checkCapability("max_send_wr", capabilities.maxSendWr(), spec.maxQpWr());
        checkCapability("max_recv_wr", capabilities.maxRecvWr(), spec.maxQpWr());
        checkCapability("max_send_sge", capabilities.maxSendSge(), spec.maxSge());
        checkCapability("max_recv_sge", capabilities.maxRecvSge(), spec.maxSge());
        checkCapability("max_inline_data", capabilities.maxInlineData(), spec.maxInlineData());
        if (capabilities.maxSendWr() < 1 || (srq == null && capabilities.maxRecvWr() < 1)
                || capabilities.maxSendSge() < 1 || (srq == null && capabilities.maxRecvSge() < 1)) {
            throw Failures.invalid("ibv_create_qp", "max_send_wr, max_send_sge (and without an SRQ max_recv_wr, "
                    + "max_recv_sge) must be at least 1: " + capabilities);
        }
        if (type == QueuePairType.RAW_PACKET && srq != null) {
            throw Failures.invalid("ibv_create_qp", "a RAW_PACKET QP cannot use an SRQ");
        }
        device().reserve(ResourceKind.QUEUE_PAIR, spec.maxQp(), "ibv_create_qp", "queue pairs");
        return new SimulatedQp(this, type, (SimulatedCq) sendCq, (SimulatedCq) recvCq, (SimulatedSrq) srq,
                capabilities, signalAll);
    }

    private static void checkCapability(String name, int requested, int limit) {
        if (requested > limit || requested < 0) {
            throw Failures.aboveLimit("ibv_create_qp", name, requested, limit);
        }
    }

    @Override
    public SrqHandle createSharedReceiveQueue(SharedReceiveQueueAttributes attributes) {
        DeviceSpec spec = device().spec();
        if (attributes.maxWr() < 1 || attributes.maxWr() > spec.maxSrqWr()) {
            throw Failures.aboveLimit("ibv_create_srq", "max_wr", attributes.maxWr(), spec.maxSrqWr());
        }
        if (attributes.maxSge() < 1 || attributes.maxSge() > spec.maxSge()) {
            throw Failures.aboveLimit("ibv_create_srq", "max_sge", attributes.maxSge(), spec.maxSge());
        }
        if (attributes.limit() < 0 || attributes.limit() > attributes.maxWr()) {
            throw Failures.invalid("ibv_create_srq", "srq_limit " + attributes.limit() + " is outside 0..max_wr");
        }
        device().reserve(ResourceKind.SHARED_RECEIVE_QUEUE, spec.maxSrq(), "ibv_create_srq",
                "shared receive queues");
        return new SimulatedSrq(this, attributes);
    }

    @Override
    public AhHandle createAddressHandle(AddressVector addressVector) {
        SimulatedPort port = device().port(addressVector.portNumber());
        if (port.isEthernet() && !addressVector.isGlobal()) {
            throw Failures.invalid("ibv_create_ah", "port " + port.number() + " is Ethernet (RoCE): the address "
                    + "needs a GRH", "give the address vector a GlobalRoute with the destination GID");
        }
        GlobalRoute route = addressVector.globalRoute();
        if (route != null && route.sourceGidIndex() >= port.gids().size()) {
            throw Failures.invalid("ibv_create_ah", "sgid_index " + route.sourceGidIndex()
                    + " is outside the GID table of " + port.gids().size() + " entries");
        }
        device().reserve(ResourceKind.ADDRESS_HANDLE, device().spec().maxAh(), "ibv_create_ah", "address handles");
        return new SimulatedAh(this, addressVector);
    }

    @Override
    public void destroy() {
        device().release(ResourceKind.PROTECTION_DOMAIN);
    }
}
