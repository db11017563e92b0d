/**
 * The native provider: libibverbs and librdmacm called through the Foreign Function &amp; Memory
 * API, over the jextract bindings in {@code generated} (see {@code docs/native-provider.md}).
 */
@NullMarked
package io.rdma.verbs.provider.ibverbs;

import org.jspecify.annotations.NullMarked;
