package io.rdma.spring.listener;

/** A message a queue pair received: its bytes and, when the sender attached some, its immediate data. */
public record ReceivedMessage(String queuePair, byte[] payload, boolean hasImmediateData, int immediateData) {
}
