package io.rdma.spring.channel;

/** Where a channel stands. */
public enum ChannelState {

    /** Its queue pair is usable: connected (RTS), or declared and left to the application to connect. */
    UP,

    /** Its connection failed or is being made; the same queue pair comes up again when it reconnects. */
    DOWN,

    /** Its queue pair is closed, or about to be: the peer or instance left; the name may come back as a new channel. */
    GONE
}
