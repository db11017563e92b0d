package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.PortCounters;
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
 * directories (rxe on Debian 12's kernel has both: the PMA set in {@code counters/}, and
 * {@code sent_pkts}, {@code rcvd_pkts}, {@code retry_exceeded_err}, ... in {@code hw_counters}). Values are as the kernel gives them: the IB data
 * counters ({@code port_xmit_data}, {@code port_rcv_data}) count 4-byte words. Files that hold
 * no number are left out (some drivers write {@code N/A (no PMA)} where the port has no PMA).
 */
final class SysfsPortCounters {

    static final String COUNTERS = "counters";
    static final String HW_COUNTERS = "hw_counters";

    private SysfsPortCounters() {
    }

    /** Both directories of the port, each read once; a directory the device lacks gives an empty map. */
    static PortCounters read(String sysfsPath, String deviceName, int port) {
        Path portDir = Path.of(sysfsPath, "ports", Integer.toString(port));
        if (!Files.isDirectory(portDir)) {
            throw new VerbsException("port counters", Errno.EINVAL, "no sysfs directory " + portDir + " for port "
                    + port + " of " + deviceName, "ports are numbered from 1");
        }
        return new PortCounters(port, readDirectory(portDir.resolve(COUNTERS)),
                readDirectory(portDir.resolve(HW_COUNTERS)));
    }

    private static Map<String, Long> readDirectory(Path directory) {
        Map<String, Long> into = new TreeMap<>();
        if (!Files.isDirectory(directory)) {
            return into;
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
        return into;
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
