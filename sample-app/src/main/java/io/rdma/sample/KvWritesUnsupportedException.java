package io.rdma.sample;

/**
 * A PUT or DELETE on a device without atomics: the store's writers lock a bucket with an RDMA
 * compare-and-swap, which an iWARP device (siw) does not have. GET, an RDMA READ, still works.
 */
class KvWritesUnsupportedException extends RuntimeException {

    KvWritesUnsupportedException(String device) {
        super(reason(device));
    }

    /** Why the store cannot be written through {@code device}, and what to do. */
    static String reason(String device) {
        return "PUT and DELETE lock a bucket with an RDMA compare-and-swap, and device " + device + " has no atomics"
                + " (atomic_cap NONE, as every iWARP device); GET still reads the store. Run the key-value store on"
                + " a device with atomics (InfiniBand or RoCE)";
    }
}
