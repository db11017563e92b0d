/**
 * The failure analyzer of a name written in code that names nothing declared.
 */
@NullMarked
package io.rdma.boot.autoconfigure.naming;

import org.jspecify.annotations.NullMarked;
