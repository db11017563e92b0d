package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.DeviceNodeAccess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** CAP_IPC_LOCK is bit 14 of CapEff; device nodes are classified as open(2) would find them. */
class NativeHostAccessTest {

    @Test
    void ipcLockIsBit14OfTheEffectiveSet() {
        String root = "Name:\tjava\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n";
        String dropped = "CapPrm:\t000001ffffffbfff\nCapEff:\t000001ffffffbfff\n";
        String onlyIpcLock = "CapEff:\t0000000000004000\n";
        assertThat(NativeHostAccess.hasCapability(root, 14)).isTrue();
        assertThat(NativeHostAccess.hasCapability(dropped, 14)).isFalse();
        assertThat(NativeHostAccess.hasCapability(onlyIpcLock, 14)).isTrue();
        assertThat(NativeHostAccess.hasCapability(onlyIpcLock, 13)).isFalse();
    }

    @Test
    void missingAndReadWriteNodes(@TempDir Path dev) throws IOException {
        Path node = Files.createFile(dev.resolve("uverbs0"));
        assertThat(NativeHostAccess.node(node.toString()).access()).isEqualTo(DeviceNodeAccess.READ_WRITE);
        assertThat(NativeHostAccess.node(dev.resolve("rdma_cm").toString()).access())
                .isEqualTo(DeviceNodeAccess.MISSING);
    }

    @Test
    void thisProcessHasALockedMemoryAllowance() {
        // getrlimit through FFM: a process always has one; whatever it is, it reads without failing.
        assertThat(NativeHostAccess.lockedMemory().limit()).isNotNull();
    }
}
