/**
 * Channels: every connected queue pair the programming model sends and receives on, by name, in
 * one registry. Declared queue pairs, accepted peers, outbound connections and the instances of
 * discovered services publish and retire channels here; the template and the listener containers
 * look them up and follow them. Nothing here knows who publishes.
 */
@NullMarked
package io.rdma.spring.channel;

import org.jspecify.annotations.NullMarked;
