package io.rdma.verbs.nativeimage;

import io.rdma.verbs.spi.VerbsProvider;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The native provider's classes (package {@code io.rdma.verbs.provider.ibverbs} and its
 * generated bindings), loaded apart from the test's own copy and rewritten so that their links
 * go through {@link LinkRecorder} and their library lookups succeed without rdma-core. It
 * tells the downcalls and upcalls the provider really links ({@link #observe()}) and the ones
 * its list {@code NativeDowncalls} declares ({@link #declared()}).
 */
final class ProviderLinks {

    static final String PACKAGE = "io/rdma/verbs/provider/ibverbs/";
    static final String GENERATED = PACKAGE + "generated/";

    private static final String LINKER = "java/lang/foreign/Linker";
    private static final String SYMBOL_LOOKUP = "java/lang/foreign/SymbolLookup";
    private static final ClassDesc RECORDER = ClassDesc.of(LinkRecorder.class.getName());

    private final Path classes;
    private final RewritingLoader loader;

    ProviderLinks() {
        try {
            this.classes = Path.of(VerbsProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        this.loader = new RewritingLoader(classes, ProviderLinks.class.getClassLoader());
    }

    /**
     * Initialises every hand-written class of the provider, and every generated class that
     * their code initialises when it runs (the holder class of each generated function it calls
     * or binds, found by following its calls into the generated code), and returns what
     * they link. Each is initialised as the JVM would on first use: the downcall and upcall
     * stubs the provider makes are linked in class initialisation (see {@code Downcall}).
     */
    List<ForeignLink> observe() {
        LinkRecorder.clear();
        for (String internalName : classesToInitialise()) {
            try {
                Class.forName(internalName.replace('/', '.'), true, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        return LinkRecorder.links();
    }

    /** {@code NativeDowncalls.all(...)}, given every function descriptor of the generated {@code rdma_h}. */
    List<ForeignLink> declared() {
        try {
            Class<?> list = loader.loadClass("io.rdma.verbs.provider.ibverbs.NativeDowncalls");
            Method all = list.getDeclaredMethod("all", Collection.class);
            all.setAccessible(true);
            Class<?> downcall = loader.loadClass("io.rdma.verbs.provider.ibverbs.Downcall");
            Method descriptor = downcall.getDeclaredMethod("descriptor");
            Method options = downcall.getDeclaredMethod("options");
            descriptor.setAccessible(true);
            options.setAccessible(true);
            List<?> downcalls = (List<?>) all.invoke(null, generatedDescriptors());
            return downcalls.stream().map(each -> {
                try {
                    @SuppressWarnings("unchecked")
                    List<Linker.Option> linkerOptions = (List<Linker.Option>) options.invoke(each);
                    return new ForeignLink(ForeignLink.Kind.DOWNCALL, (FunctionDescriptor) descriptor.invoke(each),
                            linkerOptions);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }).toList();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<FunctionDescriptor> generatedDescriptors() throws ReflectiveOperationException {
        Class<?> header = loader.loadClass("io.rdma.verbs.provider.ibverbs.generated.rdma_h");
        return Stream.of(header.getDeclaredMethods())
                .filter(method -> Modifier.isStatic(method.getModifiers()) && method.getParameterCount() == 0
                        && method.getName().endsWith("$descriptor"))
                .sorted((a, b) -> a.getName().compareTo(b.getName()))
                .map(method -> {
                    try {
                        return (FunctionDescriptor) method.invoke(null);
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException(e);
                    }
                }).toList();
    }

    /** The hand-written classes, then the generated classes their code initialises on first use. */
    private Set<String> classesToInitialise() {
        Set<String> handWritten = new TreeSet<>(classNames(classes.resolve(PACKAGE)));
        Set<String> initialised = new TreeSet<>(handWritten);
        Set<String> followed = new HashSet<>();
        Deque<CodeModel> pending = new ArrayDeque<>();
        handWritten.forEach(name -> methodBodies(name).forEach(pending::add));
        while (!pending.isEmpty()) {
            for (var element : pending.pop()) {
                switch (element) {
                    case InvokeInstruction call -> {
                        String owner = call.owner().asInternalName();
                        if (owner.startsWith(GENERATED)) {
                            if (call.opcode() == Opcode.INVOKESTATIC) {
                                initialised.add(owner);
                            }
                            follow(owner, call.name().stringValue(), call.type().stringValue(), followed, pending);
                        }
                    }
                    case FieldInstruction field when field.owner().asInternalName().startsWith(GENERATED)
                            && (field.opcode() == Opcode.GETSTATIC || field.opcode() == Opcode.PUTSTATIC) ->
                            initialised.add(field.owner().asInternalName());
                    case NewObjectInstruction created when created.className().asInternalName()
                            .startsWith(GENERATED) -> initialised.add(created.className().asInternalName());
                    case InvokeDynamicInstruction indy -> indy.bootstrapArgs().stream()
                            .filter(DirectMethodHandleDesc.class::isInstance)
                            .map(DirectMethodHandleDesc.class::cast)
                            .filter(target -> internalName(target.owner()).startsWith(GENERATED))
                            .forEach(target -> {
                                initialised.add(internalName(target.owner()));
                                follow(internalName(target.owner()), target.methodName(),
                                        target.lookupDescriptor(), followed, pending);
                            });
                    default -> {
                    }
                }
            }
        }
        return initialised;
    }

    private void follow(String owner, String name, String type, Set<String> followed, Deque<CodeModel> pending) {
        if (!followed.add(owner + '.' + name + type)) {
            return;
        }
        ClassModel declaring = parse(owner);
        List<CodeModel> bodies = declaring.methods().stream()
                .filter(method -> method.methodName().equalsString(name) && method.methodType().equalsString(type))
                .flatMap(method -> method.code().stream()).toList();
        pending.addAll(bodies);
        // inherited: rdma_h's static members are declared in rdma_h$shared
        declaring.superclass().map(superclass -> superclass.asInternalName())
                .filter(superclass -> bodies.isEmpty() && superclass.startsWith(GENERATED))
                .ifPresent(superclass -> follow(superclass, name, type, followed, pending));
    }

    private Stream<CodeModel> methodBodies(String internalName) {
        return parse(internalName).methods().stream().flatMap(method -> method.code().stream());
    }

    private ClassModel parse(String internalName) {
        return ClassFile.of().parse(read(classes.resolve(internalName + ".class")));
    }

    private static String internalName(ClassDesc type) {
        return type.descriptorString().substring(1, type.descriptorString().length() - 1);
    }

    private static List<String> classNames(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(Path::getFileName).map(Path::toString).filter(name -> name.endsWith(".class"))
                    .map(name -> PACKAGE + name.substring(0, name.length() - ".class".length())).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Defines the provider's classes itself, rewritten; everything else comes from the test's loader. */
    private static final class RewritingLoader extends ClassLoader {

        private final Path classes;

        RewritingLoader(Path classes, ClassLoader parent) {
            super("native-provider-links", parent);
            this.classes = classes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            String internalName = name.replace('.', '/');
            if (!internalName.startsWith(PACKAGE)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    Path file = classes.resolve(internalName + ".class");
                    if (!Files.exists(file)) {
                        throw new ClassNotFoundException(name);
                    }
                    byte[] rewritten = rewrite(read(file));
                    loaded = defineClass(name, rewritten, 0, rewritten.length);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }

        /** Calls to the linker's linking methods and to library lookups become calls to {@link LinkRecorder}. */
        private static byte[] rewrite(byte[] classFile) {
            ClassFile files = ClassFile.of();
            return files.transformClass(files.parse(classFile), ClassTransform.transformingMethodBodies(
                    (code, element) -> {
                        if (element instanceof InvokeInstruction call && recorded(call)) {
                            var type = call.opcode() == Opcode.INVOKESTATIC ? call.typeSymbol()
                                    : call.typeSymbol().insertParameterTypes(0, call.owner().asSymbol());
                            code.invokestatic(RECORDER, call.name().stringValue(), type);
                        } else {
                            code.with(element);
                        }
                    }));
        }

        private static boolean recorded(InvokeInstruction call) {
            String owner = call.owner().asInternalName();
            String name = call.name().stringValue();
            return owner.equals(LINKER) && (name.equals("downcallHandle") || name.equals("upcallStub"))
                    || owner.equals(SYMBOL_LOOKUP) && name.equals("libraryLookup");
        }
    }
}
