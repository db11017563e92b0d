package io.rdma.verbs.api;

import java.util.HexFormat;

/**
 * A 64-bit GUID (node, system image or port GUID) in host byte order. It is an identifier, not
 * a number: it prints as {@code ibv_devinfo} shows it, four groups of four hex digits
 * ({@code b8ce:f603:0012:3456}), so a GUID with the top bit set (every vendor OUI from 0x80
 * up) is never shown as a negative decimal.
 *
 * <p>Immutable and thread-safe.
 *
 * @param value the 64 bits, most significant first as in {@code ibv_devinfo}'s form
 */
public record Guid(long value) {

    /**
     * Parses {@code ibv_devinfo}'s form, {@code b8ce:f603:0012:3456}.
     *
     * @throws IllegalArgumentException when the text is not four colon-separated groups of four hex digits
     */
    public static Guid parse(String text) {
        String[] groups = text.split(":");
        if (groups.length != 4) {
            throw new IllegalArgumentException("not a GUID (xxxx:xxxx:xxxx:xxxx): " + text);
        }
        long value = 0;
        for (String group : groups) {
            if (group.length() != 4 || !group.chars().allMatch(HexFormat::isHexDigit)) {
                throw new IllegalArgumentException("not a GUID (xxxx:xxxx:xxxx:xxxx): " + text);
            }
            value = (value << 16) | HexFormat.fromHexDigits(group);
        }
        return new Guid(value);
    }

    @Override
    public String toString() {
        String hex = HexFormat.of().toHexDigits(value);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
