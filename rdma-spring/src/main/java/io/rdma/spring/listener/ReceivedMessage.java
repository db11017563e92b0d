package io.rdma.spring.listener;

/**
 * A message a queue pair received: its bytes and, when the sender attached some, its immediate data.
 * An RDMA write with immediate data arrives as a message with no bytes and the immediate data: what
 * was written is in the memory the writer addressed.
 */
public record ReceivedMessage(String queuePair, byte[] payload, boolean hasImmediateData, int immediateData) {
}
