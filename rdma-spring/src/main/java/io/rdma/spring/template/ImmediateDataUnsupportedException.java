package io.rdma.spring.template;

/**
 * An operation that carries immediate data on a channel whose device has none: iWARP (Soft-iWARP,
 * iWARP NICs) carries no immediate data (RFC 5040), and siw refuses such a work request. Refused
 * at the call, as no retry would make it go. Request/reply carries its correlation id in the
 * immediate data ({@link RdmaWireFormat}), so it needs the InfiniBand transport too.
 */
public class ImmediateDataUnsupportedException extends UnsupportedOperationException {

    private final String channel;

    public ImmediateDataUnsupportedException(String channel, String operation, String device) {
        super("channel '" + channel + "' cannot take a " + operation + ": its device '" + device + "' is iWARP,"
                + " whose transport has no immediate data (RFC 5040). Request/reply carries its correlation id in the"
                + " immediate data, so it needs an InfiniBand-transport device (InfiniBand, RoCE, rxe) too; on iWARP,"
                + " use sends, RDMA writes and reads without immediate data");
        this.channel = channel;
    }

    public String channel() {
        return channel;
    }
}
