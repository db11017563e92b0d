package io.rdma.sample;

import java.util.List;
import java.util.concurrent.TimeoutException;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
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

    KvController(KvClient client, KvServer server) {
        this.client = client;
        this.server = server;
    }

    @GetMapping("/{key}")
    ResponseEntity<byte[]> get(@PathVariable String key) throws TimeoutException, InterruptedException {
        return client.get(key).map(value -> ResponseEntity.ok().contentType(MediaType.APPLICATION_OCTET_STREAM).body(value))
                .orElseGet(() -> ResponseEntity.notFound().build());
    }

    @PutMapping("/{key}")
    ResponseEntity<Void> put(@PathVariable String key, @RequestBody byte[] value) throws TimeoutException, InterruptedException {
        client.put(key, value);
        return ResponseEntity.noContent().build();
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
