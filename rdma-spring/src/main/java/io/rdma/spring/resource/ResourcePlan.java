package io.rdma.spring.resource;

import io.rdma.verbs.api.CounterDescription;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The declared resources, checked before anything was created, as the programming model reads it
 * at run time: which ports each device uses, how each completion queue is polled, where each
 * queue pair connects from and how long its sends wait for room, the declared connections.
 * Names are unique across the declaration, so every map is keyed by the resource's name.
 * The auto-configuration makes one from the {@code rdma.*} properties.
 */
public interface ResourcePlan {

    /** The ports each device's declaration uses, by device name: those health watches and metrics report. */
    Map<String, List<Integer>> configuredPorts();

    /** How each declared completion queue is polled, by its name. */
    Map<String, CompletionPolling> completionPolling();

    /** The port and memory pool of each queue pair and queue pair prototype, by name. */
    Map<String, QueuePairAddress> queuePairAddresses();

    /** How long sends on each queue pair and queue pair prototype wait for send-queue room, by name. */
    Map<String, SendTimeout> sendTimeouts();

    /** What each flow's counter points collect, by flow name, in index order. */
    Map<String, List<CounterDescription>> flowCounterPoints();

    /** How long the pollers wait at shutdown for outstanding sends before flushing them. */
    Duration drainTimeout();

    /** The declared listeners and outbound connections. */
    ConnectionPlan connections();
}
