package io.rdma.verbs.provider.ibverbs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rdma-core release whose libibverbs and librdmacm this process has loaded, told by the
 * files mapped into it: rdma-core names its libraries {@code libibverbs.so.1.<abi>.<release>}
 * ({@code libibverbs.so.1.14.44.0} is rdma-core 44.0). The provider reads ops tables in
 * {@code struct ibv_context}/{@code verbs_context} and re-implements the {@code static inline}
 * verbs of one release's headers, which no symbol lookup can check, so a release whose layouts
 * were not verified is refused rather than guessed at.
 */
record RdmaCoreRelease(String version, int major, Path libibverbs, Path librdmacm) {

    /**
     * The releases the provider was verified against: {@code NativeAbiTest} against their
     * headers and the rxe0 suite in the Soft-RoCE guest against their libraries. A stable
     * update of a release (44.1, 44.2 ...) is accepted with it: rdma-core's stable branches
     * take fixes only, never an ABI change.
     */
    static final SortedSet<Integer> VERIFIED_MAJORS = new TreeSet<>(List.of(44, 56));

    private static final Pattern LIBRARY_FILE = Pattern.compile("lib(ibverbs|rdmacm)\\.so\\.1\\.\\d+\\.((\\d+)\\.\\d+)");

    /** The release loaded into this process, from {@code /proc/self/maps}; call it after both libraries are loaded. */
    static RdmaCoreRelease loaded() {
        try {
            return fromMappedFiles(Files.readAllLines(Path.of("/proc/self/maps")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/maps to tell which rdma-core this process "
                    + "loaded (the native provider needs Linux): " + e.getMessage(), e);
        }
    }

    /**
     * The release of the libibverbs and librdmacm among these {@code /proc/self/maps} lines.
     *
     * @throws IllegalStateException naming the files, when either library is not mapped, is mapped
     *         from more than one file, is not named as rdma-core names it, or the two come from
     *         different releases
     */
    static RdmaCoreRelease fromMappedFiles(List<String> mapsLines) {
        Path libibverbs = mappedFile(mapsLines, NativeLibraries.LIBIBVERBS);
        Path librdmacm = mappedFile(mapsLines, NativeLibraries.LIBRDMACM);
        Matcher verbs = nameOf(libibverbs);
        Matcher cm = nameOf(librdmacm);
        if (!verbs.group(2).equals(cm.group(2))) {
            throw new IllegalStateException("libibverbs (" + libibverbs + ") is rdma-core " + verbs.group(2)
                    + " but librdmacm (" + librdmacm + ") is rdma-core " + cm.group(2)
                    + ": load both from one rdma-core (LD_LIBRARY_PATH naming one directory with both)");
        }
        return new RdmaCoreRelease(verbs.group(2), Integer.parseInt(verbs.group(3)), libibverbs, librdmacm);
    }

    boolean verified() {
        return VERIFIED_MAJORS.contains(major);
    }

    /** Why the provider refuses this release and what to do instead; meaningful when it is not {@link #verified()}. */
    String refusal() {
        return "rdma-core " + version + " (" + libibverbs + ") is not one the native provider was verified against "
                + "(rdma-core " + VERIFIED_MAJORS.stream().map(major -> major + ".x").toList() + "); its struct layouts "
                + "and inline verbs may differ, so it is not used. Load a verified rdma-core (LD_LIBRARY_PATH), or "
                + "verify this one: build it with rdma-verbs/softroce/rdma-core-build.sh " + version + " and run "
                + "NativeAbiTest and the rxe0 suite against it (docs/native-provider.md), then add " + major
                + " to RdmaCoreRelease.VERIFIED_MAJORS";
    }

    @Override
    public String toString() {
        return "rdma-core " + version + " (" + libibverbs + ", " + librdmacm + ")";
    }

    /** The one file the library {@code soname} is mapped from. */
    private static Path mappedFile(List<String> mapsLines, String soname) {
        Set<Path> files = new LinkedHashSet<>();
        for (String line : mapsLines) {
            // address perms offset dev inode [path]: the path is the sixth field and may contain spaces
            String[] fields = line.trim().split("\\s+", 6);
            if (fields.length == 6 && fields[5].startsWith("/")) {
                // a library replaced on disk since it was loaded (a package upgrade) is still the one in use
                Path file = Path.of(fields[5].replaceFirst(" \\(deleted\\)$", ""));
                if (file.getFileName().toString().startsWith(soname)) {
                    files.add(file);
                }
            }
        }
        if (files.size() != 1) {
            throw new IllegalStateException(files.isEmpty()
                    ? soname + " is not mapped into this process, so its rdma-core release cannot be told"
                    : soname + " is mapped from " + files.size() + " files " + files + ": load one rdma-core only");
        }
        return files.iterator().next();
    }

    private static Matcher nameOf(Path library) {
        Matcher matcher = LIBRARY_FILE.matcher(library.getFileName().toString());
        if (!matcher.matches()) {
            throw new IllegalStateException(library + " is not named as rdma-core names its libraries "
                    + "(libibverbs.so.1.<abi>.<release>), so its release and layouts cannot be told: use a "
                    + "libibverbs built by rdma-core's own build (a distribution package or "
                    + "rdma-verbs/softroce/rdma-core-build.sh)");
        }
        return matcher;
    }
}
