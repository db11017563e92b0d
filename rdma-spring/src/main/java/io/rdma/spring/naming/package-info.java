/**
 * Names written in code (an {@code @RdmaListener} attribute, the queue pair or channel of a
 * template call, an error handler's bean name) checked against those declared: the failure when one
 * names nothing ({@link io.rdma.spring.naming.UnknownRdmaNameException}) and the nearest declared
 * name it offers ({@link io.rdma.spring.naming.NearestName}), the rule the configuration's own
 * checks use too.
 */
@NullMarked
package io.rdma.spring.naming;

import org.jspecify.annotations.NullMarked;
