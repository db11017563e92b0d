package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.GlobalRoute;
import io.rdma.verbs.provider.ibverbs.generated.ibv_ah_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_global_route;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** {@link AddressVector} to and from {@code struct ibv_ah_attr}. */
final class AddressVectors {

    private AddressVectors() {
    }

    static void write(AddressVector vector, MemorySegment ahAttr) {
        ahAttr.fill((byte) 0);
        ibv_ah_attr.dlid(ahAttr, (short) vector.destinationLid());
        ibv_ah_attr.sl(ahAttr, (byte) vector.serviceLevel());
        ibv_ah_attr.src_path_bits(ahAttr, (byte) vector.sourcePathBits());
        ibv_ah_attr.port_num(ahAttr, (byte) vector.portNumber());
        GlobalRoute route = vector.globalRoute();
        if (route != null) {
            ibv_ah_attr.is_global(ahAttr, (byte) 1);
            MemorySegment grh = ibv_ah_attr.grh(ahAttr);
            MemorySegment.copy(route.destinationGid().toBytes(), 0, ibv_global_route.dgid(grh),
                    ValueLayout.JAVA_BYTE, 0, Gid.LENGTH);
            ibv_global_route.flow_label(grh, route.flowLabel());
            ibv_global_route.sgid_index(grh, (byte) route.sourceGidIndex());
            ibv_global_route.hop_limit(grh, (byte) route.hopLimit());
            ibv_global_route.traffic_class(grh, (byte) route.trafficClass());
        }
    }

    static AddressVector read(MemorySegment ahAttr) {
        GlobalRoute route = null;
        if (ibv_ah_attr.is_global(ahAttr) != 0) {
            MemorySegment grh = ibv_ah_attr.grh(ahAttr);
            route = new GlobalRoute(Gid.of(ibv_global_route.dgid(grh).toArray(ValueLayout.JAVA_BYTE)),
                    Byte.toUnsignedInt(ibv_global_route.sgid_index(grh)), ibv_global_route.flow_label(grh),
                    Byte.toUnsignedInt(ibv_global_route.hop_limit(grh)),
                    Byte.toUnsignedInt(ibv_global_route.traffic_class(grh)));
        }
        return new AddressVector(Short.toUnsignedInt(ibv_ah_attr.dlid(ahAttr)),
                Byte.toUnsignedInt(ibv_ah_attr.sl(ahAttr)), Byte.toUnsignedInt(ibv_ah_attr.src_path_bits(ahAttr)),
                Byte.toUnsignedInt(ibv_ah_attr.port_num(ahAttr)), route);
    }
}
