package io.rdma.verbs.api;

import java.util.function.Function;
import java.util.function.ToLongFunction;

import org.jspecify.annotations.Nullable;

/** How send and receive requests append to a chain: in order, and never into a loop. */
final class WorkRequestChain {

    private WorkRequestChain() {
    }

    /**
     * The last request of the chain that starts at {@code head}, after which {@code request} is
     * to be linked.
     *
     * @throws IllegalArgumentException when {@code request}'s chain already holds that last
     *         request (so any request of this chain), which would make the chain a loop
     */
    static <R> R tailToAppend(R head, R request, Function<R, @Nullable R> next, ToLongFunction<R> wrId) {
        R last = head;
        for (@Nullable R after = next.apply(last); after != null; after = next.apply(last)) {
            last = after;
        }
        for (@Nullable R wr = request; wr != null; wr = next.apply(wr)) {
            if (wr == last) {
                throw new IllegalArgumentException("WR " + wrId.applyAsLong(request) + " is already chained with WR "
                        + wrId.applyAsLong(head) + "; appending it again would make the chain a loop");
            }
        }
        return last;
    }
}
