package io.rdma.verbs.provider.simulated;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * Objects by small integer id (QP numbers, memory keys) for the data path: a lookup is one
 * array read, no hashing and no boxing. Ids are never reused, so a stale id finds nothing.
 */
final class ObjectTable<T> {

    private volatile @Nullable Object[] slots = new Object[64];
    private int nextId;

    ObjectTable(int firstId) {
        this.nextId = firstId;
    }

    synchronized int add(T value) {
        int id = nextId++;
        if (id >= slots.length) {
            slots = Arrays.copyOf(slots, Math.max(id + 1, slots.length * 2));
        }
        @Nullable Object[] current = slots;
        current[id] = value;
        slots = current; // volatile write publishes the element to lock-free readers
        return id;
    }

    synchronized void remove(int id) {
        @Nullable Object[] current = slots;
        current[id] = null;
        slots = current;
    }

    @SuppressWarnings("unchecked")
    @Nullable T get(int id) {
        @Nullable Object[] current = slots;
        return id > 0 && id < current.length ? (T) current[id] : null;
    }
}
