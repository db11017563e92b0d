/**
 * Startup checks of what the host grants and of the ports a configuration uses, before anything
 * is created on the device, and the failure analyzer of a failed check.
 */
@NullMarked
package io.rdma.boot.autoconfigure.preflight;

import org.jspecify.annotations.NullMarked;
