package io.rdma.spring.resource;

import java.time.Duration;

/** How long a send may wait for room in a full send queue, and the property that says so. */
public record SendTimeout(Duration limit, String property) {
}
