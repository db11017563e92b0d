package io.rdma.boot.autoconfigure.resource;

import java.util.Locale;

/**
 * How a configured enum value is written in {@code application.yml} ({@code remote-write},
 * {@code rdma-read}), for messages that name one.
 */
final class ConfiguredNames {

    private ConfiguredNames() {
    }

    static String nameOf(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
