package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.DeviceNode;
import io.rdma.verbs.api.DeviceNodeAccess;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.HostAccess;
import io.rdma.verbs.api.LockedMemoryAllowance;
import io.rdma.verbs.api.VerbsException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the host grants this process for a device: access to {@code /dev/infiniband/uverbsN}
 * and {@code rdma_cm} (checked as open(2) would, with access(2) for the effective user), the
 * {@code RLIMIT_MEMLOCK} soft limit from {@code getrlimit(2)}, and {@code CAP_IPC_LOCK} from
 * {@code CapEff} in {@code /proc/self/status}.
 */
final class NativeHostAccess {

    static final String DEVICE_NODES = "/dev/infiniband/";
    private static final int RLIMIT_MEMLOCK = 8;
    private static final int CAP_IPC_LOCK = 14;
    private static final Path PROCESS_STATUS = Path.of("/proc/self/status");
    /** {@code int getrlimit(int, struct rlimit *)}; {@code struct rlimit} is two {@code rlim_t} (u64): cur, max. */
    private static final CheckedCall GETRLIMIT = CheckedCall.bind("getrlimit",
            Linker.nativeLinker().defaultLookup().findOrThrow("getrlimit"), NativeDowncalls.GETRLIMIT);

    private NativeHostAccess() {
    }

    /** {@code verbsNodeName} is the device's {@code dev_name} ({@code uverbs0}). */
    static HostAccess read(String verbsNodeName) {
        return new HostAccess(node(DEVICE_NODES + verbsNodeName), node(DEVICE_NODES + "rdma_cm"), lockedMemory());
    }

    static DeviceNode node(String path) {
        Path node = Path.of(path);
        if (!Files.exists(node)) {
            return new DeviceNode(path, DeviceNodeAccess.MISSING);
        }
        boolean readable = Files.isReadable(node);
        boolean writable = Files.isWritable(node);
        DeviceNodeAccess access = readable && writable ? DeviceNodeAccess.READ_WRITE
                : readable ? DeviceNodeAccess.READ_ONLY
                : writable ? DeviceNodeAccess.WRITE_ONLY
                : DeviceNodeAccess.DENIED;
        return new DeviceNode(path, access);
    }

    static LockedMemoryAllowance lockedMemory() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rlimit = arena.allocate(ValueLayout.JAVA_LONG, 2);
            GETRLIMIT.status("RLIMIT_MEMLOCK", RLIMIT_MEMLOCK, rlimit);
            return LockedMemoryAllowance.ofRlimit(rlimit.getAtIndex(ValueLayout.JAVA_LONG, 0),
                    hasCapability(readStatus(), CAP_IPC_LOCK));
        }
    }

    private static String readStatus() {
        try {
            return Files.readString(PROCESS_STATUS);
        } catch (IOException e) {
            throw new VerbsException("read " + PROCESS_STATUS, Errno.EIO, e.getMessage(), null);
        }
    }

    /** Whether bit {@code capability} is set in the {@code CapEff:} line (hex) of a {@code /proc/<pid>/status}. */
    static boolean hasCapability(String status, int capability) {
        for (String line : status.split("\n")) {
            if (line.startsWith("CapEff:")) {
                long effective = Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
                return (effective & (1L << capability)) != 0;
            }
        }
        return false;
    }
}
