package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * Port and hardware counters from sysfs: every file of
 * {@code <ibdev_path>/ports/<port>/counters/} and {@code .../hw_counters/}, discovered from the
 * directories (rxe has only {@code hw_counters}: {@code sent_pkts}, {@code rcvd_pkts},
 * {@code retry_exceeded_err}, ...). Values are as the kernel gives them: the IB data
 * counters ({@code port_xmit_data}, {@code port_rcv_data}) count 4-byte words.
 */
final class SysfsPortCounters {

    static final String COUNTERS = "counters";
    static final String HW_COUNTERS = "hw_counters";

    private SysfsPortCounters() {
    }

    /** Counters by file name; a name in both directories keeps the {@code counters/} value. */
    static Map<String, Long> read(String sysfsPath, String deviceName, int port) {
        Path portDir = Path.of(sysfsPath, "ports", Integer.toString(port));
        if (!Files.isDirectory(portDir)) {
            throw new VerbsException("port counters", Errno.EINVAL, "no sysfs directory " + portDir + " for port "
                    + port + " of " + deviceName, "ports are numbered from 1");
        }
        Map<String, Long> counters = new TreeMap<>();
        readDirectory(portDir.resolve(HW_COUNTERS), counters);
        readDirectory(portDir.resolve(COUNTERS), counters);
        return counters;
    }

    private static void readDirectory(Path directory, Map<String, Long> into) {
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, Files::isRegularFile)) {
            for (Path file : files) {
                Long value = readValue(file);
                if (value != null) {
                    into.put(file.getFileName().toString(), value);
                }
            }
        } catch (IOException e) {
            throw new VerbsException("port counters", Errno.EIO, "cannot list " + directory + ": " + e.getMessage(),
                    null);
        }
    }

    /** The counter's value; null for files that are unreadable or hold no number (some drivers write N/A). */
    private static @Nullable Long readValue(Path file) {
        try {
            return Long.parseUnsignedLong(Files.readString(file).trim());
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }
}
