/**
 * The failure analyzer of a declared connection that did not come up.
 */
@NullMarked
package io.rdma.boot.autoconfigure.connection;

import org.jspecify.annotations.NullMarked;
