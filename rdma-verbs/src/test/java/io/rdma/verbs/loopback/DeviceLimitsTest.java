package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import io.rdma.verbs.provider.simulated.DeviceSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.EnumSet;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Creation requests the device must refuse (EINVAL): sizes above what {@code ibv_query_device}
 * reports, and access flags that contradict each other. A refused creation leaves nothing behind.
 */
class DeviceLimitsTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    private Map<ResourceKind, Long> liveBefore;

    @ParameterizedTest
    @EnumSource(value = AccessFlag.class, names = {"REMOTE_WRITE", "REMOTE_ATOMIC"})
    void remoteWritingAccessWithoutLocalWriteIsInvalid(AccessFlag remote) {
        fabric.pd();
        liveBefore = fabric.verbs().liveObjects();

        VerbsErrors.expectFailure("ibv_reg_mr", Errno.EINVAL,
                () -> fabric.region(4096, EnumSet.of(remote, AccessFlag.REMOTE_READ)));
    }

    @Test
    void completionQueueAboveMaxCqeIsInvalid() {
        DeviceAttributes device = fabric.deviceAttributes();
        liveBefore = fabric.verbs().liveObjects();

        VerbsErrors.expectFailure("ibv_create_cq", Errno.EINVAL, () -> fabric.completionQueue(device.maxCqe() + 1));
    }

    @Test
    void queuePairAboveMaxQpWrIsInvalid() {
        DeviceAttributes device = fabric.deviceAttributes();
        var cq = fabric.completionQueue(16);
        fabric.pd();
        liveBefore = fabric.verbs().liveObjects();

        VerbsErrors.expectFailure("ibv_create_qp", Errno.EINVAL, () -> fabric.queuePair(QueuePairType.RC, cq, null,
                QueuePairCapabilities.of(device.maxQpWr() + 1, 4)));
    }

    @Test
    void queuePairAboveMaxSgeIsInvalid() {
        DeviceAttributes device = fabric.deviceAttributes();
        var cq = fabric.completionQueue(16);
        fabric.pd();
        liveBefore = fabric.verbs().liveObjects();

        VerbsErrors.expectFailure("ibv_create_qp", Errno.EINVAL, () -> fabric.queuePair(QueuePairType.RC, cq, null,
                QueuePairCapabilities.of(4, 4).withSge(device.maxSge() + 1, 1)));
    }

    @Test
    void queuePairAboveMaxInlineDataIsInvalid() {
        DeviceAttributes device = fabric.deviceAttributes();
        assumeTrue(device.maxInlineData() > 0, "the device reports no inline data limit");
        var cq = fabric.completionQueue(16);
        fabric.pd();
        liveBefore = fabric.verbs().liveObjects();

        VerbsErrors.expectFailure("ibv_create_qp", Errno.EINVAL, () -> fabric.queuePair(QueuePairType.RC, cq, null,
                QueuePairCapabilities.of(4, 4).withInlineData(device.maxInlineData() + 1)));
    }

    @Test
    void sharedReceiveQueueAboveMaxSrqWrIsInvalid() {
        DeviceAttributes device = fabric.deviceAttributes();
        fabric.pd();
        liveBefore = fabric.verbs().liveObjects();

        VerbsErrors.expectFailure("ibv_create_srq", Errno.EINVAL, () -> fabric.pd().createSharedReceiveQueue(
                SharedReceiveQueueAttributes.of(device.maxSrqWr() + 1, 0)));
    }

    @Test
    void memoryRegionAboveMaxMrSizeIsInvalid() {
        fabric.openSpecialDevice(DeviceSpec.named("sim-small-mr").maxMrSize(1 << 20).build());
        long maxMrSize = fabric.deviceAttributes().maxMrSize();
        assumeTrue(maxMrSize > 0 && maxMrSize <= 1L << 26, "the device's max_mr_size is too large to exceed here");
        fabric.pd();
        liveBefore = fabric.verbs().liveObjects();

        VerbsErrors.expectFailure("ibv_reg_mr", Errno.EINVAL, () -> fabric.region(maxMrSize + 4096));
    }

    @AfterEach
    void refusedCreationLeavesNothingBehind() {
        if (liveBefore != null) {
            assertThat(fabric.verbs().liveObjects()).isEqualTo(liveBefore);
        }
    }
}
