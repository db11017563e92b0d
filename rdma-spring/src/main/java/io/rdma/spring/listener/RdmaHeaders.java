package io.rdma.spring.listener;

/**
 * The names of the headers a received RDMA message has, for {@code @Header} parameters of
 * {@link RdmaListener} methods ({@code @Header(RdmaHeaders.IMMEDIATE_DATA) int tag}), a
 * {@code @Headers Map} or a {@code Message<?>}. They describe the receive, not bytes of the
 * message: an RDMA message carries no headers of its own, so there are no others (no content type,
 * no id, no timestamp).
 */
public final class RdmaHeaders {

    /** What every name starts with, so that they stand apart from Spring's and the application's. */
    public static final String PREFIX = "rdma_";

    /**
     * {@code String}: the name of the channel (queue pair) the message came in on, to send to the
     * peer later through the template. Always present.
     */
    public static final String RECEIVED_CHANNEL = PREFIX + "receivedChannel";

    /**
     * {@code Integer}: the immediate data the sender attached (a send or RDMA write with
     * immediate data), as {@link ReceivedMessage#immediateData()} gives it. Absent when the sender attached none: a parameter for
     * it then takes {@code required = false} with {@code Integer} or {@code Optional<Integer>}.
     */
    public static final String IMMEDIATE_DATA = PREFIX + "immediateData";

    /**
     * {@code Integer}: the correlation id of a request of request/reply, which its reply carries
     * back. Absent when the message is not such a request.
     */
    public static final String CORRELATION_ID = PREFIX + "correlationId";

    private RdmaHeaders() {
    }
}
