package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;

import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.util.Optional;

/**
 * Whether the rdma-core runtime libraries can be loaded, checked before anything touches the
 * generated {@code rdma_h}, whose class initialisation fails without them.
 */
final class NativeLibraries {

    static final String LIBIBVERBS = "libibverbs.so.1";
    static final String LIBRDMACM = "librdmacm.so.1";

    private NativeLibraries() {
    }

    /** Why the libraries cannot be loaded, or empty when both load. */
    static Optional<String> missing() {
        for (String library : new String[] {LIBIBVERBS, LIBRDMACM}) {
            try {
                SymbolLookup.libraryLookup(library, Arena.global());
            } catch (IllegalArgumentException e) {
                return Optional.of(library + " cannot be loaded (" + e.getMessage() + "): install rdma-core's "
                        + "runtime (Debian/Ubuntu: libibverbs1 librdmacm1 ibverbs-providers; RHEL: rdma-core "
                        + "libibverbs librdmacm)");
            }
        }
        return Optional.empty();
    }

    /**
     * Loads libibverbs and librdmacm and tells their rdma-core release.
     *
     * @throws VerbsException naming what was found and what to do, when either library cannot be
     *         loaded or the release is not one the provider was verified against
     */
    static RdmaCoreRelease loadVerified() {
        String missing = missing().orElse(null);
        if (missing != null) {
            throw new VerbsException("dlopen", Errno.ENOENT, missing, null);
        }
        RdmaCoreRelease release;
        try {
            release = RdmaCoreRelease.loaded();
        } catch (IllegalStateException | UncheckedIOException e) {
            throw new VerbsException("dlopen", Errno.ENOENT, e.getMessage(), null);
        }
        if (!release.verified()) {
            throw new VerbsException("dlopen", Errno.EOPNOTSUPP, release.refusal(), null);
        }
        return release;
    }

    /** A symbol of libibverbs that newer rdma-core releases export and older ones lack. */
    static Optional<java.lang.foreign.MemorySegment> optionalVerbsSymbol(String name) {
        return SymbolLookup.libraryLookup(LIBIBVERBS, Arena.global()).find(name);
    }
}
