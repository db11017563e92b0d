package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionQueue;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.fail;

/** Polling helpers: wait (boundedly) for an exact number of completions, or take what is there now. */
public final class Completions {

    private Completions() {
    }

    /**
     * Polls {@code cq} until {@code count} completions arrived, taking no more than that; fails
     * naming what did arrive when {@link LoopbackFabric#WAIT} passes first.
     */
    public static List<Completion> await(CompletionQueue cq, int count) {
        List<Completion> arrived = new ArrayList<>(count);
        long deadline = System.nanoTime() + LoopbackFabric.WAIT.toNanos();
        while (arrived.size() < count) {
            if (take(cq, count - arrived.size(), arrived) == 0) {
                if (System.nanoTime() > deadline) {
                    return fail("expected " + count + " completions on " + cq + " within " + LoopbackFabric.WAIT
                            + ", got " + arrived.size() + ": " + arrived);
                }
                Thread.onSpinWait();
            }
        }
        return arrived;
    }

    public static Completion awaitOne(CompletionQueue cq) {
        return await(cq, 1).getFirst();
    }

    /** Whatever {@code cq} holds right now, without waiting. */
    public static List<Completion> pollNow(CompletionQueue cq) {
        List<Completion> arrived = new ArrayList<>();
        while (take(cq, 64, arrived) > 0) {
            // keep draining
        }
        return arrived;
    }

    private static int take(CompletionQueue cq, int max, List<Completion> into) {
        CompletionBatch batch = new CompletionBatch(Math.min(max, 64));
        int polled = cq.poll(batch);
        for (int i = 0; i < polled; i++) {
            into.add(Completion.of(batch.get(i)));
        }
        return polled;
    }
}
