package io.rdma.sample.faults;

import io.rdma.sample.faults.KvOperation.Op;
import io.rdma.sample.faults.KvOperation.Outcome;

import java.util.Locale;
import java.util.SortedMap;
import java.util.StringJoiner;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * The counts {@link KvHistoryRecorder} prints when it ends: the operations by request and outcome,
 * the failed ones by HTTP status (0: no answer), and the longest request.
 */
final class KvHistorySummary {

    private final long[][] counts = new long[Op.values().length][Outcome.values().length];
    private final SortedMap<Integer, Long> failedByStatus = new TreeMap<>();
    private @Nullable KvOperation longest;

    synchronized void add(KvOperation operation) {
        counts[operation.op().ordinal()][operation.outcome().ordinal()]++;
        if (operation.outcome() == Outcome.FAILED) {
            failedByStatus.merge(operation.status(), 1L, Long::sum);
        }
        if (longest == null || duration(operation) > duration(longest)) {
            longest = operation;
        }
    }

    synchronized long count(Op op, Outcome outcome) {
        return counts[op.ordinal()][outcome.ordinal()];
    }

    /** E.g. {@code operations 1476: put ok 812 failed 3, get ok 640 absent 21, ...; failed by status 0: 1, 503: 2; longest request 5.003 s (...)}. */
    synchronized String line() {
        StringJoiner byOp = new StringJoiner(", ");
        long total = 0;
        for (Op op : Op.values()) {
            StringJoiner byOutcome = new StringJoiner(" ");
            for (Outcome outcome : Outcome.values()) {
                long count = count(op, outcome);
                if (count > 0) {
                    byOutcome.add(KvOperation.jsonName(outcome) + " " + count);
                    total += count;
                }
            }
            if (byOutcome.length() > 0) {
                byOp.add(KvOperation.jsonName(op) + " " + byOutcome);
            }
        }
        StringJoiner byStatus = new StringJoiner(", ", "failed by status ", "").setEmptyValue("none failed");
        failedByStatus.forEach((status, count) -> byStatus.add(status + ": " + count));
        String slowest = longest == null ? "no request" : String.format(Locale.ROOT, "longest request %.3f s (%s)",
                duration(longest) / 1e6, KvRegisterHistory.describe(longest, longest.invoke()));
        return "operations " + total + (total == 0 ? "" : ": " + byOp) + "; " + byStatus + "; " + slowest;
    }

    private static long duration(KvOperation operation) {
        return operation.complete() - operation.invoke();
    }
}
