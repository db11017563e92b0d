package io.rdma.sample.faults;

import io.rdma.sample.faults.KvOperation.Op;
import io.rdma.sample.faults.KvOperation.Outcome;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static io.rdma.sample.faults.KvLinearizabilityCheckerTests.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker against the definition itself on many small random histories: a history is
 * linearizable exactly when some order of its operations, each after every one that completed
 * before it was invoked, leaves each allowed on the register; a failed PUT or DELETE may take its
 * place anywhere after its invocation, or none, and a reset anywhere within its window.
 */
class KvLinearizabilityExhaustiveTests {

    /** An operation as the definition sees it: {@code optional} ones need not take effect. */
    private record Step(RegisterOp.Kind kind, @Nullable String value, long invoke, long complete, boolean optional) {
    }

    @Test
    void theCheckerAgreesWithTryingEveryOrder() {
        Random random = new Random(19);
        int violations = 0;
        for (int round = 0; round < 10_000; round++) {
            List<KvOperation> history = new ArrayList<>();
            List<KvReset> resets = new ArrayList<>();
            List<Step> steps = new ArrayList<>();
            randomHistory(random, history, resets, steps);

            boolean linearizable = someOrder(steps, new boolean[steps.size()], null);

            assertThat(KvLinearizabilityChecker.check(history, resets).violations().isEmpty())
                    .as("%s with resets %s", history, resets).isEqualTo(linearizable);
            violations += linearizable ? 0 : 1;
        }
        assertThat(violations).as("histories that are not linearizable").isBetween(1_000, 9_000);
    }

    /** Up to 8 operations within 55 ms on one key, written both as the checker reads them and as steps. */
    private static void randomHistory(Random random, List<KvOperation> history, List<KvReset> resets, List<Step> steps) {
        List<String> written = new ArrayList<>();
        for (int i = 2 + random.nextInt(7); i > 0; i--) {
            long invoke = at(random.nextInt(40));
            long complete = invoke + 1000L * random.nextInt(15);
            boolean failed = random.nextInt(4) == 0;
            int dice = random.nextInt(12);
            if (dice < 4) {
                String value = "v" + i;
                written.add(value);
                history.add(new KvOperation(1, Op.PUT, "k", value, invoke, complete, failed ? 503 : 204,
                        failed ? Outcome.FAILED : Outcome.OK, null, null));
                steps.add(new Step(RegisterOp.Kind.WRITE, value, invoke, failed ? Long.MAX_VALUE : complete, failed));
            }
            else if (dice < 8) {
                String value = written.isEmpty() || random.nextInt(3) == 0 ? null : written.get(random.nextInt(written.size()));
                history.add(new KvOperation(1, Op.GET, "k", value, invoke, complete, value == null ? 404 : 200,
                        value == null ? Outcome.ABSENT : Outcome.OK, null, null));
                steps.add(new Step(RegisterOp.Kind.READ, value, invoke, complete, false));
            }
            else if (dice < 11) {
                Outcome outcome = failed ? Outcome.FAILED : random.nextBoolean() ? Outcome.OK : Outcome.ABSENT;
                history.add(new KvOperation(1, Op.DELETE, "k", null, invoke, complete, 0, outcome, null, null));
                steps.add(switch (outcome) {
                    case OK -> new Step(RegisterOp.Kind.DELETE, null, invoke, complete, false);
                    case ABSENT -> new Step(RegisterOp.Kind.READ, null, invoke, complete, false);
                    case FAILED -> new Step(RegisterOp.Kind.WRITE, null, invoke, Long.MAX_VALUE, true);
                });
            }
            else {
                resets.add(new KvReset("k", invoke, complete));
                steps.add(new Step(RegisterOp.Kind.WRITE, null, invoke, complete, false));
            }
        }
    }

    /** Whether the steps not {@code done} can follow in some order from {@code register}. */
    private static boolean someOrder(List<Step> steps, boolean[] done, @Nullable String register) {
        long earliestCompletion = Long.MAX_VALUE;
        boolean mandatoryLeft = false;
        for (int i = 0; i < steps.size(); i++) {
            if (!done[i]) {
                earliestCompletion = Math.min(earliestCompletion, steps.get(i).complete());
                mandatoryLeft |= !steps.get(i).optional();
            }
        }
        if (!mandatoryLeft) {
            return true;
        }
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            boolean allowed = switch (step.kind()) {
                case WRITE -> true;
                case DELETE -> register != null;
                case READ -> Objects.equals(step.value(), register);
            };
            if (!done[i] && step.invoke() <= earliestCompletion && allowed) {
                done[i] = true;
                boolean follows = someOrder(steps, done, step.kind() == RegisterOp.Kind.READ ? register
                        : step.kind() == RegisterOp.Kind.DELETE ? null : step.value());
                done[i] = false;
                if (follows) {
                    return true;
                }
            }
        }
        return false;
    }
}
