package io.rdma.verbs.provider.ibverbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The identity of a board that libibverbs does not report and sysfs does, one file each under
 * {@code <ibdev_path>}: {@code board_id} (mlx5: the PSID) and {@code hca_type} (mlx5: {@code MT4119}).
 * Only some drivers create them (rxe creates neither), so a missing file reads as empty, the
 * value node_exporter's {@code node_infiniband_info} shows for it.
 */
final class SysfsDeviceIdentity {

    static final String BOARD_ID = "board_id";
    static final String HCA_TYPE = "hca_type";

    private SysfsDeviceIdentity() {
    }

    /** The trimmed content of {@code <sysfsPath>/<file>}; empty when the driver has no such file or it cannot be read. */
    static String read(String sysfsPath, String file) {
        Path path = Path.of(sysfsPath, file);
        try {
            return Files.isRegularFile(path) ? Files.readString(path).trim() : "";
        } catch (IOException e) {
            return "";
        }
    }
}
