package io.rdma.verbs.loopback;

import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

/**
 * Run by {@link MisuseTest} in a JVM of its own: an inline send whose data's arena was
 * closed before {@code postSend}. Prints the refusal and what is left outstanding; a JVM that
 * read the freed memory would crash here instead.
 */
public final class InlineFromClosedArena {

    private InlineFromClosedArena() {
    }

    public static void main(String[] args) {
        LoopbackFabric fabric = new LoopbackFabric();
        try {
            Loopback loopback = fabric.connectedPair(QueuePairType.RC);
            MemoryRegion target = fabric.region(64);
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 64));
            MemorySegment data;
            // Large enough that freeing it unmaps the pages, so a read of it faults.
            try (Arena arena = Arena.ofShared()) {
                data = arena.allocate(64L << 20).asSlice(0, 32);
            }
            try {
                loopback.requester().postSend(new SendWorkRequest().wrId(2)
                        .flags(EnumSet.of(SendFlag.SIGNALED, SendFlag.INLINE)).addInline(data));
                System.out.println("posted");
            } catch (VerbsException refused) {
                System.out.println("refused: " + refused.getMessage());
            }
            System.out.println("outstanding sends: " + loopback.requester().outstandingSends());
        } finally {
            fabric.verbs().close();
        }
    }
}
