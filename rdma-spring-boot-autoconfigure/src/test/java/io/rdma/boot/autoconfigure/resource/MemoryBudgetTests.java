package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;

import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The plan counts what each memory pool costs against a given heap and physical memory: its
 * buffers' objects against half the heap, its registration against physical memory.
 */
class MemoryBudgetTests {

    private static final long MIB = 1024 * 1024;
    private static final String PD = "rdma.devices.sim0.protection-domains.pd0";

    @Test
    void poolsPinningMoreThanHalfOfPhysicalMemoryAreWarnedOfByName() {
        MemoryBudget machine = new MemoryBudget(1024 * MIB, 100 * MIB);

        CheckedResourcePlan plan = CheckedResourcePlan.read(pools(40, 20), machine);

        assertThat(plan.pinnedMemoryWarning()).hasValueSatisfying(warning -> assertThat(warning)
                .contains("[first, second]").contains("pin 60.0 MiB, 60% of this machine's 100.0 MiB"));
    }

    @Test
    void poolsPinningHalfOfPhysicalMemoryOrLessStartWithoutWarning() {
        CheckedResourcePlan plan = CheckedResourcePlan.read(pools(30, 20), new MemoryBudget(1024 * MIB, 100 * MIB));

        assertThat(plan.pinnedMemoryWarning()).isEmpty();
    }

    /** 88 bytes of heap per buffer: 600,000 buffers are 50.4 MiB, above half of a 100 MiB heap; 590,000 are not. */
    @Test
    void buffersHoldingMoreThanHalfOfTheHeapFailNamingTheCountOfThePoolThatCrossesIt() {
        assertThatCode(() -> CheckedResourcePlan.read(bufferCounts(290_000, 300_000), hundredMibHeap()))
                .doesNotThrowAnyException();

        assertThatExceptionOfType(InvalidRdmaConfigurationException.class)
                .isThrownBy(() -> CheckedResourcePlan.read(bufferCounts(300_000, 300_000), hundredMibHeap()))
                .satisfies(e -> {
                    assertThat(e.property()).isEqualTo(PD + ".memory-pools.second.count");
                    assertThat(e.problem()).contains("the 300000 buffers of memory pool 'second' hold 25.2 MiB of heap")
                            .contains("50.4 MiB in all").contains("maximum heap of 100.0 MiB");
                    assertThat(e.action()).contains("-Xmx) to at least 100.7 MiB");
                });
    }

    /** A 100 MiB heap on a machine with a TiB of memory. */
    private static MemoryBudget hundredMibHeap() {
        return new MemoryBudget(100 * MIB, 1024 * 1024 * MIB);
    }

    /** Two pools of 4 KiB buffers, {@code firstMib} and {@code secondMib} MiB each. */
    private static RdmaProperties pools(int firstMib, int secondMib) {
        return withPools(4096, (int) (firstMib * MIB / 4096), (int) (secondMib * MIB / 4096));
    }

    /** Two pools of 8-byte buffers. */
    private static RdmaProperties bufferCounts(int first, int second) {
        return withPools(8, first, second);
    }

    private static RdmaProperties withPools(int bufferSize, int firstCount, int secondCount) {
        RdmaProperties properties = new RdmaProperties();
        RdmaProperties.Device device = new RdmaProperties.Device();
        RdmaProperties.ProtectionDomain pd = new RdmaProperties.ProtectionDomain();
        pd.getMemoryPools().put("first", pool(bufferSize, firstCount));
        pd.getMemoryPools().put("second", pool(bufferSize, secondCount));
        device.getProtectionDomains().put("pd0", pd);
        properties.getDevices().put("sim0", device);
        return properties;
    }

    private static RdmaProperties.MemoryPool pool(int bufferSize, int count) {
        RdmaProperties.MemoryPool pool = new RdmaProperties.MemoryPool();
        pool.setBufferSize(DataSize.ofBytes(bufferSize));
        pool.setCount(count);
        return pool;
    }
}
