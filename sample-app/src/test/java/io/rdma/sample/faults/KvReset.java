package io.rdma.sample.faults;

/**
 * The loss of a key's value: the instance that stored it was killed at one instant between
 * {@code from} and {@code to} (epoch microseconds). A line of the resets file reads
 * {@code <key> <from> <to>}.
 */
record KvReset(String key, long from, long to) {

    KvReset {
        if (to < from) {
            throw new IllegalArgumentException("the reset of " + key + " ends (" + to + ") before it begins (" + from + ")");
        }
    }

    /** The reset of one line; an {@link IllegalArgumentException} says what is wrong with it. */
    static KvReset parse(String line) {
        String[] fields = line.strip().split("\\s+");
        if (fields.length != 3) {
            throw new IllegalArgumentException("expected \"<key> <from-micros> <to-micros>\", found " + fields.length + " fields");
        }
        try {
            return new KvReset(fields[0], Long.parseLong(fields[1]), Long.parseLong(fields[2]));
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("the times must be integers (epoch microseconds): " + e.getMessage(), e);
        }
    }
}
