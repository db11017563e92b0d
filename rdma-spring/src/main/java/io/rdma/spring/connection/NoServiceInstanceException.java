package io.rdma.spring.connection;

/** A {@link ServiceGroup} was asked for an instance while none of its service's instances is connected. */
public class NoServiceInstanceException extends RuntimeException {

    public NoServiceInstanceException(String connection, String service) {
        super("No instance of service '" + service + "' is connected (rdma.connections.outbound." + connection
                + "): the discovery client lists none that advertises the listener, or none could be connected yet;"
                + " its health details say which");
    }
}
