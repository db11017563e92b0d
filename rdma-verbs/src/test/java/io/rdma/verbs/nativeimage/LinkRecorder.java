package io.rdma.verbs.nativeimage;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the provider's classes call instead of {@link Linker}'s linking methods and
 * {@link SymbolLookup#libraryLookup(String, Arena)} once {@link ProviderLinks} has rewritten
 * them: each link is recorded and then made by the real linker, and every library "loads" and
 * resolves every symbol to an address that is never called, so the provider's classes
 * initialise without rdma-core. Public because the rewritten classes live in another loader.
 */
public final class LinkRecorder {

    /** Where every looked-up symbol points: not NULL, which the linker refuses, and never called. */
    private static final MemorySegment UNCALLED = MemorySegment.ofAddress(0x10);
    private static final List<ForeignLink> LINKS = new ArrayList<>();

    private LinkRecorder() {
    }

    public static MethodHandle downcallHandle(Linker linker, MemorySegment address, FunctionDescriptor descriptor,
                                              Linker.Option... options) {
        record(ForeignLink.Kind.DOWNCALL, descriptor, options);
        return linker.downcallHandle(address, descriptor, options);
    }

    public static MethodHandle downcallHandle(Linker linker, FunctionDescriptor descriptor,
                                              Linker.Option... options) {
        record(ForeignLink.Kind.DOWNCALL, descriptor, options);
        return linker.downcallHandle(descriptor, options);
    }

    public static MemorySegment upcallStub(Linker linker, MethodHandle target, FunctionDescriptor descriptor,
                                           Arena arena, Linker.Option... options) {
        record(ForeignLink.Kind.UPCALL, descriptor, options);
        return linker.upcallStub(target, descriptor, arena, options);
    }

    public static SymbolLookup libraryLookup(String library, Arena arena) {
        return name -> Optional.of(UNCALLED);
    }

    static synchronized void clear() {
        LINKS.clear();
    }

    static synchronized List<ForeignLink> links() {
        return List.copyOf(LINKS);
    }

    private static synchronized void record(ForeignLink.Kind kind, FunctionDescriptor descriptor,
                                            Linker.Option... options) {
        LINKS.add(new ForeignLink(kind, descriptor, List.of(options)));
    }
}
