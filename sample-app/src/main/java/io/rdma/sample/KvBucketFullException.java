package io.rdma.sample;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/** Every slot of the bucket a new key hashes to holds another key. */
@ResponseStatus(HttpStatus.INSUFFICIENT_STORAGE)
class KvBucketFullException extends RuntimeException {

    KvBucketFullException(String key, int bucket, int slots) {
        super("the " + slots + " slots of bucket " + bucket + ", where key '" + key + "' belongs, hold other keys"
                + " (give the kv-store pool more buffers, that is buckets)");
    }
}
