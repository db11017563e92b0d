package io.rdma.boot.autoconfigure.metrics;

import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The names node_exporter's infiniband collector gives sysfs port counters, so that its users'
 * queries carry over with {@code node_infiniband_} replaced by {@code rdma_}: the PMA counters of
 * {@code counters/} and the mlx5 {@code hw_counters/} it knows, each the family name without
 * {@code _total}. The data counters count 4-byte words in sysfs and bytes here, as there.
 */
final class NodeExporterNames {

    /** A family for a sysfs counter: its name without {@code _total} and what one sysfs unit is worth in it. */
    record Family(String name, double scale) {
    }

    /** {@code port_xmit_data} and {@code port_rcv_data} count 4-byte words; the families count bytes. */
    private static final double WORDS_TO_BYTES = 4;

    private static final Map<String, Family> COUNTERS = Map.ofEntries(
            family("port_xmit_data", "port_data_transmitted_bytes", WORDS_TO_BYTES),
            family("port_rcv_data", "port_data_received_bytes", WORDS_TO_BYTES),
            family("port_xmit_packets", "port_packets_transmitted"),
            family("port_rcv_packets", "port_packets_received"),
            family("unicast_xmit_packets", "unicast_packets_transmitted"),
            family("unicast_rcv_packets", "unicast_packets_received"),
            family("multicast_xmit_packets", "multicast_packets_transmitted"),
            family("multicast_rcv_packets", "multicast_packets_received"),
            family("port_rcv_errors", "port_errors_received"),
            family("port_xmit_discards", "port_discards_transmitted"),
            family("port_rcv_discards", "port_discards_received"),
            family("port_xmit_constraint_errors", "port_constraint_errors_transmitted"),
            family("port_rcv_constraint_errors", "port_constraint_errors_received"),
            family("port_rcv_remote_physical_errors", "port_receive_remote_physical_errors"),
            family("port_rcv_switch_relay_errors", "port_receive_switch_relay_errors"),
            family("port_xmit_wait", "port_transmit_wait"),
            family("symbol_error", "symbol_error"),
            family("link_downed", "link_downed"),
            family("link_error_recovery", "link_error_recovery"),
            family("local_link_integrity_errors", "local_link_integrity_errors"),
            family("excessive_buffer_overrun_errors", "excessive_buffer_overrun_errors"),
            family("VL15_dropped", "vl15_dropped"));

    private static final Map<String, Family> HW_COUNTERS = Map.ofEntries(
            family("duplicate_request", "duplicate_requests_packets"),
            family("implied_nak_seq_err", "implied_nak_seq_errors"),
            family("local_ack_timeout_err", "local_ack_timeout_errors"),
            family("np_cnp_sent", "np_cnp_packets_sent"),
            family("np_ecn_marked_roce_packets", "np_ecn_marked_roce_packets_received"),
            family("out_of_buffer", "out_of_buffer_drops"),
            family("out_of_sequence", "out_of_sequence_packets_received"),
            family("packet_seq_err", "packet_sequence_errors"),
            family("req_cqe_error", "req_cqes_errors"),
            family("req_cqe_flush_error", "req_cqes_flush_errors"),
            family("req_remote_access_errors", "req_remote_access_errors"),
            family("req_remote_invalid_request", "req_remote_invalid_request_errors"),
            family("resp_cqe_error", "resp_cqes_errors"),
            family("resp_cqe_flush_error", "resp_cqes_flush_errors"),
            family("resp_local_length_error", "resp_local_length_errors"),
            family("resp_remote_access_errors", "resp_remote_access_errors"),
            family("rnr_nak_retry_err", "rnr_nak_retry_packets_received"),
            family("roce_adp_retrans", "roce_adp_retransmits"),
            family("roce_adp_retrans_to", "roce_adp_retransmits_timeout"),
            family("roce_slow_restart", "roce_slow_restart_used"),
            family("roce_slow_restart_cnps", "roce_slow_restart_cnps"),
            family("roce_slow_restart_trans", "roce_slow_restart"),
            family("rp_cnp_handled", "rp_cnp_packets_handled"),
            family("rp_cnp_ignored", "rp_cnp_ignored_packets_received"),
            family("rx_atomic_requests", "rx_atomic_requests"),
            family("rx_dct_connect", "rx_dct_connect_requests"),
            family("rx_read_requests", "rx_read_requests"),
            family("rx_write_requests", "rx_write_requests"),
            family("rx_icrc_encapsulated", "rx_icrc_encapsulated_errors"),
            // rxe counts its link going down under the PMA counter's name; it means the same
            family("link_downed", "link_downed"));

    /**
     * {@code hw_counters/lifespan}: not a count but how long (ms) the driver caches its counters;
     * node_exporter shows it as the gauge {@code lifespan_seconds}.
     */
    static final String LIFESPAN = "lifespan";

    private NodeExporterNames() {
    }

    private static Map.Entry<String, Family> family(String sysfsName, String family) {
        return family(sysfsName, family, 1);
    }

    private static Map.Entry<String, Family> family(String sysfsName, String family, double scale) {
        return Map.entry(sysfsName, new Family(family, scale));
    }

    /** The family of {@code counters/<name>}; null for a name node_exporter does not know. */
    static @Nullable Family ofCounter(String name) {
        return COUNTERS.get(name);
    }

    /** The family of {@code hw_counters/<name>}; null for a name node_exporter does not know (rxe's {@code sent_pkts}). */
    static @Nullable Family ofHardwareCounter(String name) {
        return HW_COUNTERS.get(name);
    }

    /** A Micrometer name for a family: dots where Prometheus shows underscores. */
    static String meterName(String family) {
        return "rdma." + family.toLowerCase(Locale.ROOT).replace('_', '.');
    }
}
