package io.rdma.spring.convert;

import java.util.Map;

import org.springframework.messaging.MessageHeaders;

/**
 * {@link MessageHeaders} without the {@code id} and {@code timestamp} that Spring otherwise stamps
 * on every message: an RDMA message carries neither, and a random id per message costs more than
 * the headers it describes (spring-kafka's {@code KafkaMessageHeaders} leaves them out for the
 * same reason).
 */
public final class UnstampedMessageHeaders extends MessageHeaders {

    /** No headers at all: a payload converted on its own. */
    public static final UnstampedMessageHeaders NONE = new UnstampedMessageHeaders(Map.of());

    public UnstampedMessageHeaders(Map<String, Object> headers) {
        super(headers, ID_VALUE_NONE, -1L);
    }
}
