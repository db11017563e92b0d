package io.rdma.spring.convert;

/** A message type of the application's own, which only JSON converts. */
public record Greeting(String text, int count) {
}
