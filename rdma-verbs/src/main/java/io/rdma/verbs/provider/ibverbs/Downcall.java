package io.rdma.verbs.provider.ibverbs;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * A function signature linked with its linker options: one downcall stub, in the JVM and in a
 * native image (where each one must be registered in the reachability metadata). It is linked
 * when it is made, so every stub the hand-written layer uses exists once {@link NativeDowncalls}
 * and the classes holding them are initialised; only {@link NativeDowncalls} makes them.
 */
final class Downcall {

    private static final Linker LINKER = Linker.nativeLinker();

    private final FunctionDescriptor descriptor;
    private final List<Linker.Option> options;
    private final MethodHandle handle;

    Downcall(FunctionDescriptor descriptor, Linker.Option... options) {
        this.descriptor = descriptor;
        this.options = List.of(options);
        this.handle = LINKER.downcallHandle(descriptor, options);
    }

    FunctionDescriptor descriptor() {
        return descriptor;
    }

    List<Linker.Option> options() {
        return options;
    }

    /** The handle for a function pointer: the function's address is its first argument. */
    MethodHandle handle() {
        return handle;
    }

    /** The handle for the function at {@code address}, as {@link Linker#downcallHandle(MemorySegment,
     * FunctionDescriptor, Linker.Option...)} binds it: exact types for {@code invokeExact}. */
    MethodHandle bindTo(MemorySegment address) {
        return handle.bindTo(address);
    }
}
