package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.spring.naming.NearestName;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.ResolvableType;
import org.springframework.core.convert.ConversionService;
import org.springframework.util.ClassUtils;

/**
 * The keys that the properties classes bound under {@code rdma} accept, read from the classes
 * themselves: their nested classes, map values and list elements included, below map keys
 * (the names of devices, queue pairs, ...) that the configuration metadata cannot describe.
 * A key nothing binds would be ignored silently, so that {@code max-sned-wr} left a queue pair
 * at its default; {@link #check} fails the start on it instead, naming the nearest valid key.
 *
 * <p>Which classes bind under {@code rdma} comes from the configuration metadata that Boot's
 * annotation processor writes for every {@code @ConfigurationProperties} class (its groups), so a
 * properties class added under {@code rdma.} is known without being listed here.
 * {@link RdmaProperties} is always known, also where the metadata was not generated (an IDE
 * build without annotation processing).
 *
 * <p>Names are compared in Boot's uniform form (lower case, without dashes), the one relaxed
 * binding compares, so camelCase, underscore and environment-variable spellings of a valid key
 * are valid.
 */
final class KnownRdmaKeys {

    /** A key as written in messages (kebab case), and the type bound at it. */
    private record Key(String name, ResolvableType type) {
    }

    static final String METADATA = "META-INF/spring-configuration-metadata.json";
    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of(RdmaProperties.PREFIX);

    /** The classes bound under {@code rdma}, by the prefix each is bound at. */
    private final Map<ConfigurationPropertyName, ResolvableType> roots = new LinkedHashMap<>();
    private final ConversionService conversion = ApplicationConversionService.getSharedInstance();

    private KnownRdmaKeys(@Nullable ClassLoader classLoader) {
        roots.put(ROOT, ResolvableType.forClass(RdmaProperties.class));
        boundClasses(classLoader).forEach((prefix, type) -> roots.putIfAbsent(prefix, ResolvableType.forClass(type)));
    }

    /** Fails with {@link InvalidRdmaConfigurationException} at the first key under {@code rdma} that nothing binds. */
    static void check(Iterable<ConfigurationPropertySource> sources, @Nullable ClassLoader classLoader) {
        KnownRdmaKeys known = new KnownRdmaKeys(classLoader);
        for (ConfigurationPropertySource source : sources) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.filter(ROOT::isAncestorOf).forEach(name -> known.check(name, source));
            }
        }
    }

    private void check(ConfigurationPropertyName name, ConfigurationPropertySource source) {
        ConfigurationPropertyName at = deepestRoot(name);
        ResolvableType type = Objects.requireNonNull(roots.get(at)); // deepestRoot picks one of its keys
        for (int i = at.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
            if (type.asMap() != ResolvableType.NONE) {
                type = type.asMap().getGeneric(1);
                if (isScalar(type)) {
                    return; // the rest of the name is the map key, as Boot's map binder reads it
                }
            } else if (isCollection(type)) {
                if (!name.isNumericIndex(i)) {
                    throw unknown(name, i, source, List.of());
                }
                type = type.isArray() ? type.getComponentType() : type.asCollection().getGeneric(0);
            } else if (isScalar(type)) {
                throw unknown(name, i, source, List.of());
            } else {
                Map<String, Key> keys = keys(type, name.chop(i));
                Key key = keys.get(name.getElement(i, Form.UNIFORM));
                if (key == null) {
                    throw unknown(name, i, source, keys.values().stream().map(Key::name).toList());
                }
                type = key.type();
            }
        }
    }

    private ConfigurationPropertyName deepestRoot(ConfigurationPropertyName name) {
        return roots.keySet().stream().filter(root -> root.equals(name) || root.isAncestorOf(name))
                .max(Comparator.comparingInt(ConfigurationPropertyName::getNumberOfElements)).orElseThrow();
    }

    /**
     * The keys of a bound class by their uniform form: its JavaBean properties, plus the prefixes
     * of other bound classes directly below {@code at} (such as {@code rdma.endpoint}).
     */
    private Map<String, Key> keys(ResolvableType type, ConfigurationPropertyName at) {
        Map<String, Key> keys = new LinkedHashMap<>();
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type.toClass())) {
            if (descriptor.getReadMethod() != null && !descriptor.getName().equals("class")) {
                // a Java name has no dashes, so lower case is its uniform form
                keys.put(descriptor.getName().toLowerCase(Locale.ROOT), new Key(kebab(descriptor.getName()),
                        ResolvableType.forMethodReturnType(descriptor.getReadMethod(), type.toClass())));
            }
        }
        roots.forEach((root, rootType) -> {
            if (!root.isEmpty() && root.getParent().equals(at)) {
                keys.putIfAbsent(root.getLastElement(Form.UNIFORM), new Key(root.getLastElement(Form.DASHED), rootType));
            }
        });
        return keys;
    }

    /** {@code maxSendWr} as a key is written: {@code max-send-wr}. */
    private static String kebab(String javaName) {
        return javaName.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
    }

    private static boolean isCollection(ResolvableType type) {
        return type.isArray() || type.asCollection() != ResolvableType.NONE;
    }

    /** A type bound from one value (a number, a duration, an enum, ...), with no keys below it. */
    private boolean isScalar(ResolvableType type) {
        Class<?> resolved = type.toClass();
        return ClassUtils.isPrimitiveOrWrapper(resolved) || conversion.canConvert(String.class, resolved);
    }

    private static InvalidRdmaConfigurationException unknown(ConfigurationPropertyName name, int element,
                                                             ConfigurationPropertySource source,
                                                             List<String> validKeys) {
        ConfigurationPropertyName parent = name.chop(element);
        String written = name.getElement(element, Form.DASHED);
        ConfigurationProperty property = source.getConfigurationProperty(name);
        String origin = property != null && property.getOrigin() != null ? " (" + property.getOrigin() + ")" : "";
        if (validKeys.isEmpty()) {
            return new InvalidRdmaConfigurationException(name.toString(), "'" + parent + "' takes a value, not keys"
                    + " below it such as '" + written + "'" + origin + ", so the setting would be ignored",
                    "Set " + parent + " itself, or remove " + name + ".");
        }
        String nearest = NearestName.of(written, validKeys);
        List<String> sorted = List.copyOf(new TreeSet<>(validKeys));
        return new InvalidRdmaConfigurationException(name.toString(), "no property '" + written + "' exists under '"
                + parent + "'" + origin + ", so the setting would be ignored",
                (nearest != null ? "Did you mean " + nearest + "? " : "") + "The keys under " + parent + " are "
                        + sorted + ".");
    }

    /** The classes bound under {@code rdma}, by prefix, from the metadata groups on the class path. */
    private static Map<ConfigurationPropertyName, Class<?>> boundClasses(@Nullable ClassLoader classLoader) {
        Map<ConfigurationPropertyName, Class<?>> bound = new LinkedHashMap<>();
        try {
            ClassLoader loader = classLoader != null ? classLoader : ClassUtils.getDefaultClassLoader();
            Enumeration<URL> metadata = loader == null ? ClassLoader.getSystemResources(METADATA)
                    : loader.getResources(METADATA);
            while (metadata.hasMoreElements()) {
                for (Object group : groups(metadata.nextElement())) {
                    if (group instanceof Map<?, ?> described && described.get("name") instanceof String prefix
                            && described.get("type") instanceof String type) {
                        ConfigurationPropertyName name = ConfigurationPropertyName.of(prefix);
                        if ((ROOT.equals(name) || ROOT.isAncestorOf(name)) && ClassUtils.isPresent(type, loader)) {
                            bound.put(name, ClassUtils.resolveClassName(type, loader));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the configuration metadata (" + METADATA + ")", e);
        }
        return bound;
    }

    private static List<?> groups(URL metadata) throws IOException {
        try (InputStream in = metadata.openStream()) {
            Object groups = JsonParserFactory.getJsonParser()
                    .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8)).get("groups");
            return groups instanceof List<?> list ? list : new ArrayList<>();
        }
    }
}
