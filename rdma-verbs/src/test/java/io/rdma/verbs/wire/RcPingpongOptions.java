package io.rdma.verbs.wire;

import io.rdma.verbs.api.Mtu;

/**
 * The command line of {@link RcPingpongPeer}: the options of {@code ibv_rc_pingpong} that change
 * what goes on the wire, with its defaults ({@code rc_pingpong.c} v44, {@code main}).
 *
 * @param serverHost null for the server (no host argument), else the server to connect to
 * @param device     null: the first device, as the C program takes it
 * @param gidIndex   -1 (no {@code -g}): a zero GID and no GRH, as in C; RoCE needs one
 */
record RcPingpongOptions(String serverHost, int tcpPort, String device, int ibPort, int size, Mtu mtu, int rxDepth,
                         int iterations, int gidIndex) {

    static final String USAGE = """
            usage: RcPingpongPeer [options]          start a server and wait for connection
                   RcPingpongPeer [options] <host>   connect to the server at <host>
              -p <port>      listen on/connect to TCP port <port> (default 18515)
              -d <dev>       use IB device <dev> (default first device found)
              -i <port>      use port <port> of the IB device (default 1)
              -s <size>      size of message to exchange (default 4096)
              -m <size>      path MTU (default 1024)
              -r <dep>       number of receives to post at a time (default 500)
              -n <iters>     number of exchanges (default 1000)
              -g <index>     local port GID index
            Messages carry and are checked against ibv_rc_pingpong -c's pattern: run the C side with -c.""";

    static RcPingpongOptions parse(String... args) {
        String serverHost = null;
        String device = null;
        int tcpPort = 18515;
        int ibPort = 1;
        int size = 4096;
        Mtu mtu = Mtu.MTU_1024;
        int rxDepth = 500;
        int iterations = 1000;
        int gidIndex = -1;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("-")) {
                if (serverHost != null || i != args.length - 1) {
                    throw new IllegalArgumentException("the server host comes last, once: " + String.join(" ", args));
                }
                serverHost = arg;
                continue;
            }
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(arg + " needs a value");
            }
            String value = args[++i];
            switch (arg) {
                case "-p" -> tcpPort = number(arg, value, 1, 65535);
                case "-d" -> device = value;
                case "-i" -> ibPort = number(arg, value, 1, 255);
                case "-s" -> size = number(arg, value, 1, Integer.MAX_VALUE);
                case "-m" -> mtu = Mtu.ofBytes(number(arg, value, 1, Integer.MAX_VALUE));
                case "-r" -> rxDepth = number(arg, value, 1, Integer.MAX_VALUE);
                case "-n" -> iterations = number(arg, value, 1, Integer.MAX_VALUE);
                case "-g" -> gidIndex = number(arg, value, 0, Integer.MAX_VALUE);
                default -> throw new IllegalArgumentException("unknown option " + arg);
            }
        }
        return new RcPingpongOptions(serverHost, tcpPort, device, ibPort, size, mtu, rxDepth, iterations, gidIndex);
    }

    boolean isClient() {
        return serverHost != null;
    }

    private static int number(String option, String value, int min, int max) {
        try {
            int number = Integer.decode(value);
            if (number < min || number > max) {
                throw new IllegalArgumentException(option + " must be " + min + ".." + max + ", not " + value);
            }
            return number;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a number, not '" + value + "'", e);
        }
    }
}
