package io.rdma.boot.autoconfigure;

import java.util.Locale;

import org.springframework.core.convert.converter.Converter;
import org.springframework.util.unit.DataSize;

/**
 * Reads sizes written with IEC binary suffixes ({@code 4KiB}, {@code 2MiB}), which is how RDMA
 * sizes are usually written, as well as everything {@link DataSize#parse} reads ({@code 4KB}
 * means 4096 bytes there too).
 */
public final class BinaryDataSizeConverter implements Converter<String, DataSize> {

    @Override
    public DataSize convert(String source) {
        String text = source.trim();
        String upper = text.toUpperCase(Locale.ROOT);
        if (upper.endsWith("IB") && upper.length() > 3) {
            return DataSize.parse(text.substring(0, text.length() - 3) + text.charAt(text.length() - 3) + "B");
        }
        return DataSize.parse(text);
    }
}
