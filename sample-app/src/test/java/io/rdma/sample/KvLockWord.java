package io.rdma.sample;

import io.rdma.spring.template.RdmaOperations;
import io.rdma.verbs.api.RemoteBuffer;

import java.util.concurrent.TimeUnit;

/**
 * The lock word of a key's bucket in an instance's store, as a test reads it: a fetch-and-add of 0,
 * through the application's own template (not the client under test).
 */
record KvLockWord(RdmaOperations rdma, String instance, RemoteBuffer word) {

    static KvLockWord of(RdmaOperations rdma, String instance, String key) throws Exception {
        KvStoreLayout layout = rdma.convertSendAndReceive(instance, new KvControl.LayoutRequest(), KvStoreLayout.class)
                .get(10, TimeUnit.SECONDS);
        return new KvLockWord(rdma, instance, layout.lockWord(layout.bucketOf(key)));
    }

    long read() throws Exception {
        return rdma.fetchAndAdd(instance, word, 0).get(10, TimeUnit.SECONDS);
    }
}
