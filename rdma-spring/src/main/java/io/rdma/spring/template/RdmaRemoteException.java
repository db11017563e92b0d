package io.rdma.spring.template;

/**
 * The listener that answered a request threw: the request's future fails with this, naming the
 * channel and the exception the remote listener threw (its class name and message), instead of
 * waiting for a reply that will not come.
 */
public class RdmaRemoteException extends RuntimeException {

    private final String channel;
    private final String remoteType;
    private final String remoteMessage;

    public RdmaRemoteException(String channel, String remoteType, String remoteMessage) {
        super("the listener answering on channel '" + channel + "' failed: " + remoteType
                + (remoteMessage.isEmpty() ? "" : ": " + remoteMessage));
        this.channel = channel;
        this.remoteType = remoteType;
        this.remoteMessage = remoteMessage;
    }

    public String channel() {
        return channel;
    }

    /** The class name of the exception the remote listener threw. */
    public String remoteType() {
        return remoteType;
    }

    public String remoteMessage() {
        return remoteMessage;
    }
}
