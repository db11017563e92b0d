package io.rdma.sample;

import io.rdma.verbs.api.MemoryPool;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeoutException;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code PUT /kv/{key}} (the body is the value), {@code GET /kv/{key}}, {@code DELETE /kv/{key}}
 * through the RDMA client, and {@code GET /kv}: the keys as the server indexed them.
 */
@RestController
@RequestMapping("/kv")
class KvController {

    private final KvClient client;
    private final KvServer server;
    /** The store's memory: no value longer than one of its buffers (a bucket) can be stored. */
    private final MemoryPool store;

    KvController(KvClient client, KvServer server, @Qualifier("kv-store") MemoryPool store) {
        this.client = client;
        this.server = server;
        this.store = store;
    }

    @GetMapping("/{key}")
    ResponseEntity<byte[]> get(@PathVariable String key) throws TimeoutException, InterruptedException {
        return client.get(key).map(value -> ResponseEntity.ok().contentType(MediaType.APPLICATION_OCTET_STREAM).body(value))
                .orElseGet(() -> ResponseEntity.notFound().build());
    }

    /**
     * The body is read up to one byte more than a bucket holds, and refused (413) as soon as it is
     * longer: a value that cannot fit is never buffered whole, let alone sent. A form body (what
     * {@code curl --data} sends by default) is refused (415): Spring parses it into parameters
     * before this method could read it, and the value would be stored empty.
     */
    @PutMapping(path = "/{key}", consumes = "!" + MediaType.APPLICATION_FORM_URLENCODED_VALUE)
    ResponseEntity<Void> put(@PathVariable String key, HttpServletRequest request)
            throws TimeoutException, InterruptedException, IOException {
        client.put(key, boundedBody(key, request));
        return ResponseEntity.noContent().build();
    }

    private byte[] boundedBody(String key, HttpServletRequest request) throws IOException {
        int limit = Math.toIntExact(store.bufferSize());
        long declared = request.getContentLengthLong();
        if (declared > limit) {
            throw new KvEntryTooLargeException(key, declared, limit);
        }
        byte[] body = request.getInputStream().readNBytes(limit + 1);
        if (body.length > limit) {
            throw new KvEntryTooLargeException(key, body.length, limit);
        }
        return body;
    }

    @DeleteMapping("/{key}")
    ResponseEntity<Void> delete(@PathVariable String key) throws TimeoutException, InterruptedException {
        return client.delete(key) ? ResponseEntity.noContent().build() : ResponseEntity.notFound().build();
    }

    @GetMapping
    List<String> keys() {
        return server.keys();
    }
}
