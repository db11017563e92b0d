package io.rdma.spring.convert;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The class path of an application without Jackson: Jackson's classes and resources cannot be
 * found, and the classes that would reach for them (this module's and spring-messaging's, whose
 * JSON converter links against Jackson) are defined here, so that they see the class path as this
 * loader shows it rather than as the test's own loader does.
 */
final class JacksonHidingClassLoader extends ClassLoader {

    private static final String HIDDEN = "tools.jackson.";
    private static final List<String> DEFINED_HERE = List.of("io.rdma.spring.", "org.springframework.messaging.");

    JacksonHidingClassLoader(ClassLoader parent) {
        super("without-jackson", parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.startsWith(HIDDEN)) {
            throw new ClassNotFoundException(name + " (Jackson is hidden from this class loader)");
        }
        if (DEFINED_HERE.stream().noneMatch(name::startsWith)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                loaded = define(name);
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    private Class<?> define(String name) throws ClassNotFoundException {
        String path = name.replace('.', '/') + ".class";
        try (InputStream in = getParent().getResourceAsStream(path)) {
            if (in == null) {
                throw new ClassNotFoundException(name);
            }
            byte[] bytes = in.readAllBytes();
            return defineClass(name, bytes, 0, bytes.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public @Nullable URL getResource(String name) {
        return name.startsWith(HIDDEN.replace('.', '/')) ? null : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        return name.startsWith(HIDDEN.replace('.', '/')) ? Collections.emptyEnumeration() : super.getResources(name);
    }
}
