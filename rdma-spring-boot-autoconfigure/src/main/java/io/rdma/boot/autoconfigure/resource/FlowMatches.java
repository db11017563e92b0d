package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.verbs.api.FlowSpec;

import java.util.HexFormat;

/**
 * Turns a flow's configured match into an {@link FlowSpec}, naming the property of a field that
 * does not parse or does not fit its header field.
 */
final class FlowMatches {

    private FlowMatches() {
    }

    static FlowSpec spec(int port, RdmaProperties.Flow flow, String property) {
        RdmaProperties.FlowMatch match = flow.getMatch();
        String matchProperty = property + ".match";
        FlowSpec spec = FlowSpec.onPort(port).withPriority(flow.getPriority());
        if (match.getDestinationMac() != null || match.getEtherType() != null) {
            long mac = match.getDestinationMac() == null ? 0
                    : mac(match.getDestinationMac(), matchProperty + ".destination-mac");
            long macMask = match.getDestinationMac() == null ? 0 : FlowSpec.Ethernet.MAC_MASK;
            int etherType = match.getEtherType() == null ? 0
                    : field(match.getEtherType(), 0xFFFF, matchProperty + ".ether-type", "an ether type (16 bits)");
            int etherTypeMask = match.getEtherType() == null ? 0 : 0xFFFF;
            spec = spec.withEthernet(new FlowSpec.Ethernet(mac, macMask, 0, 0, etherType, etherTypeMask, 0, 0));
        }
        if (match.getSourceIpv4() != null || match.getDestinationIpv4() != null) {
            int source = match.getSourceIpv4() == null ? 0 : ipv4(match.getSourceIpv4(), matchProperty + ".source-ipv4");
            int destination = match.getDestinationIpv4() == null ? 0
                    : ipv4(match.getDestinationIpv4(), matchProperty + ".destination-ipv4");
            spec = spec.withIpv4(new FlowSpec.Ipv4(source, match.getSourceIpv4() == null ? 0 : -1, destination,
                    match.getDestinationIpv4() == null ? 0 : -1));
        }
        if (match.getProtocol() != null) {
            FlowSpec.Protocol protocol = match.getProtocol();
            int source = match.getSourcePort() == null ? 0
                    : field(match.getSourcePort(), 0xFFFF, matchProperty + ".source-port", "a " + protocol + " port");
            int destination = match.getDestinationPort() == null ? 0
                    : field(match.getDestinationPort(), 0xFFFF, matchProperty + ".destination-port",
                    "a " + protocol + " port");
            spec = spec.withTransport(new FlowSpec.Transport(protocol, source, match.getSourcePort() == null ? 0 : 0xFFFF,
                    destination, match.getDestinationPort() == null ? 0 : 0xFFFF));
        }
        else if (match.getSourcePort() != null || match.getDestinationPort() != null) {
            throw new InvalidRdmaConfigurationException(matchProperty + ".protocol", "ports are matched but no"
                    + " protocol is named", "Set protocol to tcp or udp.");
        }
        return spec;
    }

    /** A header field of at most {@code max}: the flow spec would otherwise match its low bits only. */
    private static int field(int value, int max, String property, String what) {
        CheckedResourcePlan.inRange(value, 0, max, property, what);
        return value;
    }

    private static long mac(String text, String property) {
        String hex = text.replace(":", "").replace("-", "");
        if (hex.length() != 12) {
            throw new InvalidRdmaConfigurationException(property, "'" + text + "' is not a MAC address",
                    "Write it as six hex bytes, e.g. 02:00:00:00:00:01.");
        }
        try {
            return HexFormat.fromHexDigitsToLong(hex);
        } catch (IllegalArgumentException e) {
            throw new InvalidRdmaConfigurationException(property, "'" + text + "' is not a MAC address",
                    "Write it as six hex bytes, e.g. 02:00:00:00:00:01.", e);
        }
    }

    private static int ipv4(String text, String property) {
        String[] parts = text.trim().split("\\.");
        if (parts.length == 4) {
            try {
                int address = 0;
                for (String part : parts) {
                    int octet = Integer.parseInt(part);
                    if (octet < 0 || octet > 255) {
                        throw new NumberFormatException(part);
                    }
                    address = address << 8 | octet;
                }
                return address;
            } catch (NumberFormatException e) {
                // falls through to the error below
            }
        }
        throw new InvalidRdmaConfigurationException(property, "'" + text + "' is not an IPv4 address",
                "Write it in dotted form, e.g. 10.0.0.1.");
    }
}
