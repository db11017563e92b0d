package io.rdma.sample;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/** A key and value that do not fit in one slot of the store. */
@ResponseStatus(HttpStatus.CONTENT_TOO_LARGE)
class KvEntryTooLargeException extends RuntimeException {

    KvEntryTooLargeException(String key, long length, int slotCapacity) {
        super("key '" + key + "' and its value take " + length + " bytes; a slot holds " + slotCapacity
                + " (raise the kv-store pool's buffer-size or lower sample.kv.slots-per-bucket)");
    }
}
