package io.rdma.sample.faults;

import io.rdma.sample.faults.KvOperation.Op;
import io.rdma.sample.faults.KvOperation.Outcome;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A history is linearizable when each operation can be given one instant within its interval
 * such that the operations, in the order of those instants, are what a single register does
 * (Herlihy and Wing); a failed PUT or DELETE may take effect at one instant after it was sent, or
 * never, and a reset writes absent within its interval. Times here are milliseconds.
 */
class KvLinearizabilityCheckerTests {

    private static final long EPOCH = 1_767_225_600_000_000L;
    private static final String KEY = "k";

    private final List<KvOperation> history = new ArrayList<>();
    private final List<KvReset> resets = new ArrayList<>();

    @Test
    void aSequentialHistoryIsLinearizable() {
        put(1, "a", 0, 10);
        get(2, "a", 20, 30);
        put(2, "b", 40, 50);
        get(1, "b", 60, 70);
        delete(1, 80, 90);
        get(2, null, 100, 110);
        deleteAbsent(2, 120, 130);
        put(1, "c", 140, 150);
        get(1, "c", 160, 170);

        KvLinearizabilityChecker.Verdict verdict = check();

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.summary()).isEqualTo("keys 1, operations 9, linearizable 1, violations 0");
    }

    /**
     * One key of a CI run's 1024-client history (47 operations): 24 PUTs of values nobody
     * read in flight at once, most about 4.5 s long, beside reads and 204 DELETEs. The search kept a
     * state for each subset of those writes taken and ran out of a 6 GB heap after 12 minutes;
     * taking the earliest to complete of operations with the same effect, it is linearizable.
     */
    @Test
    void aKeyWithTwentyWritesOfUnreadValuesInFlightIsChecked() throws IOException {
        List<KvOperation> recorded;
        try (var lines = new String(getClass().getResourceAsStream("/histories/twenty-writes-nobody-read-in-flight.jsonl")
                .readAllBytes(), StandardCharsets.UTF_8).lines()) {
            recorded = lines.filter(line -> !line.isBlank()).map(KvOperation::parse).toList();
        }
        assertThat(recorded).hasSize(47);

        KvLinearizabilityChecker.Verdict verdict = KvLinearizabilityChecker.check(recorded, List.of());

        assertThat(verdict.violations()).as(verdict.summary()).isEmpty();
        assertThat(verdict.keys()).isEqualTo(1);
    }

    @Test
    void aReadOverlappingAWriteSeesTheOldValueOrTheNew() {
        put(1, "a", 0, 10);
        put(1, "b", 20, 60);
        get(2, "a", 30, 40);
        get(3, "b", 30, 40);

        assertThat(check().violations()).isEmpty();
    }

    @Test
    void aReadOfTheOldValueAfterALaterWriteWasAcknowledgedIsAViolation() {
        put(1, "a", 0, 10);
        put(1, "b", 20, 30);
        get(2, "a", 40, 50);

        assertThat(check().violations()).hasEntrySatisfying(KEY, reason -> assertThat(reason)
                .contains("client 2 get k -> a cannot take effect: it reads a, which",
                        "+0.020000..+0.030000 s client 1 put k b -> ok overwrites before the read was invoked",
                        "    +0.000000..+0.010000 s client 1 put k a -> ok"));
    }

    @Test
    void aReadOfAValueNeverWrittenIsAViolation() {
        put(1, "a", 0, 10);
        get(2, "torn", 20, 30);

        assertThat(check().violations()).hasEntrySatisfying(KEY, reason -> assertThat(reason)
                .contains("get k -> torn", "read of a value never written to k"));
    }

    @Test
    void anAcknowledgedWriteLostWithoutADeleteOrResetIsAViolation() {
        put(1, "a", 0, 10);
        get(2, null, 20, 30);

        assertThat(check().violations()).containsOnlyKeys(KEY);
    }

    @Test
    void aFailedPutMayTakeEffectAfterItsFailureWasAnswered() {
        put(1, "a", 0, 10);
        putFailed(1, "b", 20, 30);
        get(2, "a", 40, 50);
        get(2, "b", 100, 110);

        assertThat(check().violations()).isEmpty();
    }

    @Test
    void aFailedPutTakesEffectOnceSoItsValueCannotBeFollowedByTheOlderOne() {
        put(1, "a", 0, 10);
        putFailed(1, "b", 20, 30);
        get(2, "b", 40, 50);
        get(2, "a", 60, 70);

        assertThat(check().violations()).hasEntrySatisfying(KEY, reason -> assertThat(reason)
                .contains("get k -> a cannot take effect"));
    }

    @Test
    void twoReadersThatSawTwoValuesInOppositeOrdersAreAViolation() {
        put(1, "a", 0, 100);
        put(2, "b", 0, 100);
        get(3, "a", 10, 20);
        get(4, "b", 12, 18);
        get(3, "b", 30, 40);
        get(4, "a", 32, 38);

        assertThat(check().violations()).containsOnlyKeys(KEY);
    }

    @Test
    void aResetEmptiesTheKeyWithinItsWindowAndNotBeforeIt() {
        put(1, "a", 0, 10);
        get(2, "a", 15, 22);
        resets.add(new KvReset(KEY, at(20), at(30)));
        get(2, null, 40, 50);

        assertThat(check().violations()).isEmpty();
    }

    @Test
    void theOldValueReadAfterTheResetWindowIsAViolation() {
        put(1, "a", 0, 10);
        resets.add(new KvReset(KEY, at(20), at(30)));
        get(2, "a", 40, 50);

        assertThat(check().violations()).hasEntrySatisfying(KEY, reason -> assertThat(reason)
                .contains("get k -> a cannot take effect", "reset: the instance that stored k was killed"));
    }

    @Test
    void aDeleteThatFoundNothingReadsAbsent() {
        deleteAbsent(1, 0, 10);
        put(1, "a", 20, 30);
        delete(1, 40, 50);
        deleteAbsent(2, 60, 70);
        assertThat(check().violations()).isEmpty();

        put(1, "b", 80, 90);
        deleteAbsent(2, 100, 110);
        assertThat(check().violations()).as("nothing deleted b").containsOnlyKeys(KEY);
    }

    @Test
    void aDeleteThatAnsweredDeletedFoundAValue() {
        delete(1, 0, 10);

        assertThat(check().violations()).containsOnlyKeys(KEY);
    }

    @Test
    void aFailedDeleteMayTakeEffectLaterButOnlyOnce() {
        put(1, "a", 0, 10);
        deleteFailed(1, 20, 30);
        get(2, null, 100, 110);
        assertThat(check().violations()).isEmpty();

        put(1, "b", 120, 130);
        get(2, null, 140, 150);
        assertThat(check().violations()).containsOnlyKeys(KEY);
    }

    @Test
    void aFailedPutNobodyReadMayBeWhatADeleteFoundButOnlyOnce() {
        putFailed(1, "a", 0, 10);
        delete(2, 20, 30);
        assertThat(check().violations()).isEmpty();

        delete(2, 40, 50);
        assertThat(check().violations()).containsOnlyKeys(KEY);
    }

    @Test
    void aFailedGetSaysNothing() {
        put(1, "a", 0, 10);
        history.add(new KvOperation(2, Op.GET, KEY, null, at(20), at(30), 504, Outcome.FAILED, "timed out", null));

        assertThat(check().violations()).isEmpty();
    }

    @Test
    void eachKeyIsARegisterOfItsOwn() {
        put(1, "a", 0, 10);
        history.add(new KvOperation(2, Op.GET, "other", "a", at(20), at(30), 200, Outcome.OK, null, null));

        assertThat(check().violations()).containsOnlyKeys("other");
    }

    @Test
    void aRandomHistoryOfARealRegisterWithOverlapsAndFailuresIsLinearizable() {
        Random random = new Random(19);
        history.addAll(registerHistory(random, 2000, 8));

        assertThat(history.stream().filter(operation -> operation.outcome() == Outcome.FAILED)).hasSizeGreaterThan(50);
        assertThat(check().violations()).isEmpty();
    }

    /**
     * What 1024 clients on 64 keys make of each key: 16 operations in flight at every moment, half
     * of them writes; one read moved to a value overwritten before it was invoked is found.
     */
    @Test
    void sixteenOperationsInFlightAtEveryMomentAreChecked() {
        Random random = new Random(1024);
        history.addAll(registerHistory(random, 4000, 16));
        assertThat(check().violations()).isEmpty();

        KvOperation read = history.stream().filter(operation -> operation.op() == Op.GET
                && operation.outcome() == Outcome.OK && operation.invoke() > at(1000)).findFirst().orElseThrow();
        KvOperation overwritten = history.stream().filter(operation -> operation.op() == Op.PUT
                && operation.outcome() == Outcome.OK && operation.complete() < read.invoke() - 100_000)
                .findFirst().orElseThrow();
        history.set(history.indexOf(read), new KvOperation(read.client(), Op.GET, KEY, overwritten.value(),
                read.invoke(), read.complete(), 200, Outcome.OK, null, null));
        assertThat(check().violations()).containsOnlyKeys(KEY);
    }

    @Test
    void twoPutsOfOneValueAreRefused() {
        put(1, "a", 0, 10);
        put(2, "a", 20, 30);

        assertThatIllegalArgumentException().isThrownBy(this::check).withMessageContaining("value a written twice");
    }

    @Test
    void theMainPrintsTheViolationsAndTheSummaryAndSaysHowItEnded(@TempDir Path dir) throws IOException {
        put(1, "a", 0, 10);
        get(2, null, 20, 30);
        Path file = dir.resolve("history.jsonl");
        Files.write(file, history.stream().map(KvOperation::toJson).toList());
        Path resetFile = dir.resolve("resets");
        Files.writeString(resetFile, KEY + " " + at(12) + " " + at(18) + "\n");

        assertThat(main(file.toString())).startsWith("1\nk: ").endsWith("keys 1, operations 2, linearizable 0, violations 1\n");
        assertThat(main(file.toString(), "--resets=" + resetFile)).isEqualTo("0\nkeys 1, operations 2, linearizable 1, violations 0\n");
        Files.writeString(file, "{\"client\":1}\n", StandardOpenOption.APPEND);
        assertThat(main(file.toString())).startsWith("2\n" + file + ":3: \"op\" must be a string");
    }

    /** The exit status, then what was printed. */
    private static String main(String... args) {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        int status = KvLinearizabilityChecker.run(args, out, out);
        return status + "\n" + printed.toString(StandardCharsets.UTF_8);
    }

    /**
     * {@code operations} of {@code processes} on one key, each taking effect on a real register at
     * a random instant within its interval; one in twenty fails: a failed PUT or DELETE takes
     * effect half the time, possibly after its failure was answered.
     */
    static List<KvOperation> registerHistory(Random random, int operations, int processes) {
        record Planned(int client, Op op, @Nullable String value, long invoke, long complete, boolean failed) {

            KvOperation answered(@Nullable String read, int status, Outcome outcome) {
                return new KvOperation(client, op, KEY, op == Op.PUT ? value : read, at(invoke), at(complete),
                        failed ? 503 : status, failed ? Outcome.FAILED : outcome, failed ? "failed" : null, null);
            }
        }
        record Effect(long instant, Planned operation) {
        }
        long[] free = new long[processes];
        List<Planned> planned = new ArrayList<>();
        List<Effect> effects = new ArrayList<>();
        for (int n = 0; n < operations; n++) {
            int process = random.nextInt(processes);
            long invoke = free[process] + random.nextInt(5);
            long complete = invoke + 1 + random.nextInt(30);
            free[process] = complete;
            int dice = random.nextInt(10);
            Op op = dice < 5 ? Op.PUT : dice < 9 ? Op.GET : Op.DELETE;
            boolean failed = random.nextInt(20) == 0;
            Planned operation = new Planned(process + 1, op, "c" + (process + 1) + "-" + n, invoke, complete, failed);
            planned.add(operation);
            if (!failed) {
                effects.add(new Effect(invoke + random.nextLong(complete - invoke + 1), operation));
            }
            else if (op != Op.GET && random.nextBoolean()) {
                effects.add(new Effect(invoke + random.nextLong(3 * (complete - invoke) + 1), operation));
            }
        }
        effects.sort(Comparator.comparingLong(Effect::instant));
        Map<Planned, KvOperation> answers = new HashMap<>();
        String register = null;
        for (Effect effect : effects) {
            Planned operation = effect.operation();
            answers.put(operation, switch (operation.op()) {
                case PUT -> operation.answered(null, 204, Outcome.OK);
                case GET -> register != null ? operation.answered(register, 200, Outcome.OK)
                        : operation.answered(null, 404, Outcome.ABSENT);
                case DELETE -> register != null ? operation.answered(null, 204, Outcome.OK)
                        : operation.answered(null, 404, Outcome.ABSENT);
                case ECHO -> throw new AssertionError("no echo planned");
            });
            register = switch (operation.op()) {
                case PUT -> operation.value();
                case DELETE -> null;
                default -> register;
            };
        }
        return planned.stream().map(operation -> answers.getOrDefault(operation, operation.answered(null, 503,
                Outcome.FAILED))).toList();
    }

    private KvLinearizabilityChecker.Verdict check() {
        return KvLinearizabilityChecker.check(history, resets);
    }

    static long at(long millis) {
        return EPOCH + millis * 1000;
    }

    private void put(int client, String value, long invoke, long complete) {
        history.add(new KvOperation(client, Op.PUT, KEY, value, at(invoke), at(complete), 204, Outcome.OK, null, null));
    }

    private void putFailed(int client, String value, long invoke, long complete) {
        history.add(new KvOperation(client, Op.PUT, KEY, value, at(invoke), at(complete), 503, Outcome.FAILED,
                "the channel kv-client to b is down", "RETRY_EXC_ERR"));
    }

    /** {@code value} null: the GET answered 404. */
    private void get(int client, @Nullable String value, long invoke, long complete) {
        history.add(new KvOperation(client, Op.GET, KEY, value, at(invoke), at(complete), value == null ? 404 : 200,
                value == null ? Outcome.ABSENT : Outcome.OK, null, null));
    }

    private void delete(int client, long invoke, long complete) {
        history.add(new KvOperation(client, Op.DELETE, KEY, null, at(invoke), at(complete), 204, Outcome.OK, null, null));
    }

    private void deleteAbsent(int client, long invoke, long complete) {
        history.add(new KvOperation(client, Op.DELETE, KEY, null, at(invoke), at(complete), 404, Outcome.ABSENT, null, null));
    }

    private void deleteFailed(int client, long invoke, long complete) {
        history.add(new KvOperation(client, Op.DELETE, KEY, null, at(invoke), at(complete), 0, Outcome.FAILED,
                "no answer within 30000 ms", null));
    }
}
