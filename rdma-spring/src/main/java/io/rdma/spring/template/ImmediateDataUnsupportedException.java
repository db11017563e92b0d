package io.rdma.spring.template;

/**
 * An operation that carries immediate data on a channel whose device has none: iWARP (Soft-iWARP,
 * iWARP NICs) carries no immediate data (RFC 5040), and siw refuses such a work request. Refused
 * at the call, as no retry would make it go. Request/reply works there all the same: its word
 * travels in an in-band header instead ({@link RdmaWireFormat}); what is refused is the
 * application's own immediate data, on a send or an RDMA write.
 */
public class ImmediateDataUnsupportedException extends UnsupportedOperationException {

    private final String channel;

    public ImmediateDataUnsupportedException(String channel, String operation, String device) {
        super("channel '" + channel + "' cannot take a " + operation + ": its device '" + device + "' is iWARP,"
                + " whose transport has no immediate data (RFC 5040). On iWARP, use sends (request/reply included),"
                + " RDMA writes and reads without immediate data of the application's own, or an InfiniBand-transport"
                + " device (InfiniBand, RoCE, rxe)");
        this.channel = channel;
    }

    public String channel() {
        return channel;
    }
}
