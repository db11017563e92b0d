package io.rdma.boot.autoconfigure.resource;

import io.rdma.spring.naming.NearestName;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.ResolvableType;
import org.springframework.core.convert.ConversionFailedException;

/**
 * A value that names no constant of an enumerated property ({@code access: [remote-raed]},
 * {@code mode: pollling}) fails the start as an {@link InvalidRdmaConfigurationException} naming
 * the key, the value, the nearest valid name and all of them as they are written in
 * {@code application.yml} ({@code remote-read}), rather than Boot's conversion error, which names
 * the Java constants.
 */
final class EnumValueBindHandler extends AbstractBindHandler {

    @Override
    public @Nullable Object onFailure(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
                                      Exception error) throws Exception {
        Class<?> type = enumType(target.getType());
        if (type == null || !(error instanceof ConversionFailedException)) {
            return super.onFailure(name, target, context, error);
        }
        List<String> valid = Arrays.stream(type.getEnumConstants())
                .map(constant -> ConfiguredNames.nameOf((Enum<?>) constant)).toList();
        ConfigurationProperty property = context.getConfigurationProperty();
        String written = unknownValue(property == null ? "" : String.valueOf(property.getValue()), valid);
        String nearest = NearestName.of(written, valid);
        throw new InvalidRdmaConfigurationException(name.toString(),
                "'" + written + "' is not " + article(type) + " " + words(type),
                (nearest != null ? "Did you mean " + nearest + "? " : "") + "Use one of " + valid + ".");
    }

    /** The enum a property holds: its own type, or its elements' where it is a list or set. */
    private static @Nullable Class<?> enumType(ResolvableType type) {
        ResolvableType element = type.asCollection() != ResolvableType.NONE ? type.asCollection().getGeneric(0) : type;
        Class<?> resolved = element.resolve();
        return resolved != null && resolved.isEnum() ? resolved : null;
    }

    /** The first of the comma-separated values that is no valid name, as relaxed binding compares them. */
    private static String unknownValue(String value, List<String> valid) {
        for (String each : value.split(",")) {
            String trimmed = each.trim();
            if (valid.stream().noneMatch(name -> uniform(name).equals(uniform(trimmed)))) {
                return trimmed;
            }
        }
        return value;
    }

    private static String uniform(String name) {
        return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }

    /** {@code AccessFlag} as "access flag", {@code Protocol} as "protocol". */
    private static String words(Class<?> type) {
        return type.getSimpleName().replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
    }

    private static String article(Class<?> type) {
        return "AEIOU".indexOf(type.getSimpleName().charAt(0)) >= 0 ? "an" : "a";
    }
}
