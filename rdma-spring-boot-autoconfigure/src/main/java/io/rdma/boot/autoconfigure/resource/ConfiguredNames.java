package io.rdma.boot.autoconfigure.resource;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Turns configured names ({@code remote-write}, {@code rdma-read}) into enum constants, naming
 * the property and the valid names when one is unknown, so a typo is an error a user can act
 * on rather than a conversion stack trace.
 */
final class ConfiguredNames {

    private ConfiguredNames() {
    }

    static <E extends Enum<E>> Set<E> parseAll(Class<E> type, List<String> names, String property, String what) {
        EnumSet<E> values = EnumSet.noneOf(type);
        for (int i = 0; i < names.size(); i++) {
            values.add(parse(type, names.get(i), property + "[" + i + "]", what));
        }
        return values;
    }

    static <E extends Enum<E>> E parse(Class<E> type, @Nullable String name, String property, String what) {
        String constant = name == null ? "" : name.trim().replace('-', '_').toUpperCase(Locale.ROOT);
        for (E value : type.getEnumConstants()) {
            if (value.name().equals(constant)) {
                return value;
            }
        }
        throw new InvalidRdmaConfigurationException(property, "'" + name + "' is not " + what,
                "Use one of " + validNames(type) + ".");
    }

    static <E extends Enum<E>> String nameOf(E value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static <E extends Enum<E>> List<String> validNames(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(ConfiguredNames::nameOf).toList();
    }
}
