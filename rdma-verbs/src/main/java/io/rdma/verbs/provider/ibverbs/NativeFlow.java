package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_eth_filter;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_ipv4_filter;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_spec_eth;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_spec_ipv4;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_spec_tcp_udp;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_tcp_udp_filter;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.spi.FlowHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_flow}: an {@code ibv_flow_attr} followed by its specs in one buffer, as
 * {@code ibv_create_flow} wants it, with a counter action spec when flow counters are bound.
 */
final class NativeFlow implements FlowHandle {

    /** {@code struct ibv_flow_spec_counter_action}, which the generated bindings do not include. */
    static final StructLayout COUNTER_ACTION = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("type"), ValueLayout.JAVA_SHORT.withName("size"),
            MemoryLayout.paddingLayout(2), ValueLayout.ADDRESS.withName("counters"))
            .withName("ibv_flow_spec_counter_action");

    private final NativeContext context;
    private final MemorySegment flow;

    private NativeFlow(NativeContext context, MemorySegment flow) {
        this.context = context;
        this.flow = flow;
        context.census().created(ResourceKind.FLOW);
    }

    MemorySegment segment() {
        return flow;
    }

    static NativeFlow create(NativeContext context, MemorySegment qp, FlowSpec spec,
                             @Nullable NativeFlowCounters counters) {
        long size = ibv_flow_attr.sizeof();
        int specs = 0;
        if (spec.ethernet() != null) {
            size += ibv_flow_spec_eth.sizeof();
            specs++;
        }
        if (spec.ipv4() != null) {
            size += ibv_flow_spec_ipv4.sizeof();
            specs++;
        }
        if (spec.transport() != null) {
            size += ibv_flow_spec_tcp_udp.sizeof();
            specs++;
        }
        if (counters != null) {
            size += COUNTER_ACTION.byteSize();
            specs++;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(size, 8);
            ibv_flow_attr.type(attr, rdma_h.IBV_FLOW_ATTR_NORMAL());
            ibv_flow_attr.size(attr, (short) size);
            ibv_flow_attr.priority(attr, (short) spec.priority());
            ibv_flow_attr.num_of_specs(attr, (byte) specs);
            ibv_flow_attr.port(attr, (byte) spec.port());
            long at = ibv_flow_attr.sizeof();
            if (spec.ethernet() != null) {
                at += writeEthernet(attr.asSlice(at, ibv_flow_spec_eth.sizeof()), spec.ethernet());
            }
            if (spec.ipv4() != null) {
                at += writeIpv4(attr.asSlice(at, ibv_flow_spec_ipv4.sizeof()), spec.ipv4());
            }
            if (spec.transport() != null) {
                at += writeTransport(attr.asSlice(at, ibv_flow_spec_tcp_udp.sizeof()), spec.transport());
            }
            if (counters != null) {
                MemorySegment action = attr.asSlice(at, COUNTER_ACTION.byteSize());
                action.set(ValueLayout.JAVA_INT, 0, rdma_h.IBV_FLOW_SPEC_ACTION_COUNT());
                action.set(ValueLayout.JAVA_SHORT, 4, (short) COUNTER_ACTION.byteSize());
                action.set(ValueLayout.ADDRESS, 8, counters.segment());
            }
            MemorySegment flow = context.verbs().createFlow(qp, attr, spec + " on " + context.deviceName());
            if (counters != null) {
                counters.bound();
            }
            return new NativeFlow(context, flow);
        }
    }

    private static long writeEthernet(MemorySegment target, FlowSpec.Ethernet ethernet) {
        ibv_flow_spec_eth.type(target, rdma_h.IBV_FLOW_SPEC_ETH());
        ibv_flow_spec_eth.size(target, (short) ibv_flow_spec_eth.sizeof());
        MemorySegment value = ibv_flow_spec_eth.val(target);
        MemorySegment mask = ibv_flow_spec_eth.mask(target);
        writeMac(value, ethernet.destinationMac(), ethernet.sourceMac());
        writeMac(mask, ethernet.destinationMacMask(), ethernet.sourceMacMask());
        ibv_flow_eth_filter.ether_type(value, Short.reverseBytes((short) ethernet.etherType()));
        ibv_flow_eth_filter.ether_type(mask, Short.reverseBytes((short) ethernet.etherTypeMask()));
        ibv_flow_eth_filter.vlan_tag(value, Short.reverseBytes((short) ethernet.vlanTag()));
        ibv_flow_eth_filter.vlan_tag(mask, Short.reverseBytes((short) ethernet.vlanTagMask()));
        return ibv_flow_spec_eth.sizeof();
    }

    /** MACs are the low 48 bits of a long, most significant byte first on the wire. */
    private static void writeMac(MemorySegment filter, long destination, long source) {
        for (int i = 0; i < 6; i++) {
            ibv_flow_eth_filter.dst_mac(filter, i, (byte) (destination >>> (8 * (5 - i))));
            ibv_flow_eth_filter.src_mac(filter, i, (byte) (source >>> (8 * (5 - i))));
        }
    }

    private static long writeIpv4(MemorySegment target, FlowSpec.Ipv4 ipv4) {
        ibv_flow_spec_ipv4.type(target, rdma_h.IBV_FLOW_SPEC_IPV4());
        ibv_flow_spec_ipv4.size(target, (short) ibv_flow_spec_ipv4.sizeof());
        MemorySegment value = ibv_flow_spec_ipv4.val(target);
        MemorySegment mask = ibv_flow_spec_ipv4.mask(target);
        ibv_flow_ipv4_filter.src_ip(value, Integer.reverseBytes(ipv4.sourceAddress()));
        ibv_flow_ipv4_filter.src_ip(mask, Integer.reverseBytes(ipv4.sourceMask()));
        ibv_flow_ipv4_filter.dst_ip(value, Integer.reverseBytes(ipv4.destinationAddress()));
        ibv_flow_ipv4_filter.dst_ip(mask, Integer.reverseBytes(ipv4.destinationMask()));
        return ibv_flow_spec_ipv4.sizeof();
    }

    private static long writeTransport(MemorySegment target, FlowSpec.Transport transport) {
        ibv_flow_spec_tcp_udp.type(target, transport.protocol() == FlowSpec.Protocol.TCP
                ? rdma_h.IBV_FLOW_SPEC_TCP() : rdma_h.IBV_FLOW_SPEC_UDP());
        ibv_flow_spec_tcp_udp.size(target, (short) ibv_flow_spec_tcp_udp.sizeof());
        MemorySegment value = ibv_flow_spec_tcp_udp.val(target);
        MemorySegment mask = ibv_flow_spec_tcp_udp.mask(target);
        ibv_flow_tcp_udp_filter.src_port(value, Short.reverseBytes((short) transport.sourcePort()));
        ibv_flow_tcp_udp_filter.src_port(mask, Short.reverseBytes((short) transport.sourcePortMask()));
        ibv_flow_tcp_udp_filter.dst_port(value, Short.reverseBytes((short) transport.destinationPort()));
        ibv_flow_tcp_udp_filter.dst_port(mask, Short.reverseBytes((short) transport.destinationPortMask()));
        return ibv_flow_spec_tcp_udp.sizeof();
    }

    @Override
    public void destroy() {
        context.verbs().destroyFlow(flow);
        context.census().destroyed(ResourceKind.FLOW);
    }
}
