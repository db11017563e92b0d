package io.rdma.spring.template;

/**
 * A payload longer than the buffers of its channel's memory pool (less the in-band header of
 * {@link RdmaWireFormat} on a channel without immediate data): refused at the call, before it
 * waits for room or is sent, as no room would ever make it fit.
 */
public class PayloadTooLargeException extends IllegalArgumentException {

    private final String channel;
    private final int length;
    private final long bufferSize;

    public PayloadTooLargeException(String channel, String declaration, int length, long bufferSize) {
        super(length + " bytes do not fit the " + bufferSize + " bytes a message of channel '" + channel + "' carries"
                + " (its memory pool's buffer size, less the in-band header on a channel without immediate data);"
                + " send less, or raise the buffer-size of the memory pool that queue pair '" + declaration
                + "' names");
        this.channel = channel;
        this.length = length;
        this.bufferSize = bufferSize;
    }

    public String channel() {
        return channel;
    }

    /** The payload's length in bytes. */
    public int length() {
        return length;
    }

    /** The largest payload the channel's buffers hold. */
    public long bufferSize() {
        return bufferSize;
    }
}
