package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.provider.simulated.DeviceSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Completion-counter rules that need a device with less than the default simulated HCA: each
 * test opens its own simulated device, and on a native device runs only where the real device
 * reports the same lack.
 */
class CompletionCounterDeviceVariantsTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void deviceWithoutCompletionCountersRefusesToCreateOne() {
        fabric.openSpecialDevice(DeviceSpec.named("sim-no-completion-counters").maxCompletionCounters(0).build());
        assumeFalse(fabric.deviceAttributes().supportsCompletionCounters(), "this device has completion counters");

        VerbsErrors.expectFailure("ibv_create_comp_cntr", Errno.ENOTSUP,
                () -> fabric.context().createCompletionCounter());
    }

    @Test
    void opTheDeviceCannotCountIsRefused() {
        fabric.openSpecialDevice(DeviceSpec.named("sim-send-recv-counters")
                .completionCounterOps(EnumSet.of(CompletionCounterOp.SEND, CompletionCounterOp.RECV)).build());
        DeviceAttributes attributes = fabric.deviceAttributes();
        assumeTrue(attributes.supportsCompletionCounters(), "the device has no completion counters");
        Set<CompletionCounterOp> unsupported = EnumSet.allOf(CompletionCounterOp.class);
        unsupported.removeAll(attributes.supportedCompletionCounterOps());
        assumeFalse(unsupported.isEmpty(), "the device counts every op kind");
        CompletionCounterOp op = unsupported.iterator().next();
        CompletionCounter counter = fabric.context().createCompletionCounter();

        VerbsErrors.expectFailure("ibv_qp_attach_comp_cntr", Errno.ENOTSUP,
                () -> fabric.pair(QueuePairType.RC).requester().attachCompletionCounter(counter, Set.of(op)));
        assertThat(counter.attachedQueuePairs()).isEmpty();
    }

    @Test
    void realCompletionsWrapAtASmallMaximum() {
        fabric.openSpecialDevice(DeviceSpec.named("sim-tiny-counters").completionCounterMaxValue(3).build());
        DeviceAttributes attributes = fabric.deviceAttributes();
        assumeTrue(attributes.supportsCompletionCounters(), "the device has no completion counters");
        assumeTrue(Long.compareUnsigned(attributes.completionCounterMaxValue(), 3) == 0,
                "the device's counters do not wrap after 3");
        Loopback loopback = fabric.pair(QueuePairType.RC);
        CompletionCounter counter = fabric.context().createCompletionCounter();
        loopback.requester().attachCompletionCounter(counter, Set.of(CompletionCounterOp.SEND));
        loopback.connect(fabric.connectOptions());

        new Traffic(fabric, loopback).sends(5);

        assertThat(counter.maxValue()).isEqualTo(3);
        assertThat(counter.completions()).as("0,1,2,3,0,1").isEqualTo(1);
    }
}
