package io.rdma.spring.naming;

import java.util.Collection;

import org.jspecify.annotations.Nullable;

/**
 * The valid name a mistyped one was most likely meant to be, for "did you mean" in messages: one
 * rule for the names written in {@code application.yml} (keys, enum values) and those written in
 * code ({@link UnknownRdmaNameException}).
 */
public final class NearestName {

    private NearestName() {
    }

    /**
     * The valid name closest to {@code written} by edit distance, or none when even the closest
     * differs in more than a third of its letters (then a list of the valid names helps more).
     */
    public static @Nullable String of(String written, Collection<String> validNames) {
        String nearest = null;
        int best = Integer.MAX_VALUE;
        for (String name : validNames) {
            int distance = editDistance(written, name);
            if (distance < best) {
                best = distance;
                nearest = name;
            }
        }
        return nearest != null && best <= Math.max(2, nearest.length() / 3) ? nearest : null;
    }

    /** Levenshtein distance: the fewest single-letter insertions, deletions and substitutions from a to b. */
    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
