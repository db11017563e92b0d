package io.rdma.sample.faults;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Whether a register's history is linearizable: whether each operation can be given one instant
 * within its interval such that, in the order of those instants, every operation is allowed on
 * the register as the ones before left it (Herlihy and Wing), the register absent at first.
 *
 * <p>The search is Wing and Gong's, with Lowe's memoization: a state is the set of operations
 * already linearized and the register's value, and as each state is reached by as many steps
 * as it has operations, the states are explored a level (one more operation) at a time and each
 * is kept once. The next operation can be any not yet linearized that was invoked before the
 * earliest completion among those not yet linearized. The history is cut at the instants when no
 * operation is pending; only the register's possible values cross a cut.
 *
 * <p>A read the register allows, invoked by that earliest completion, is taken at once in every
 * state, with all such reads after it: taking it then is never worse than later, since it leaves
 * the register as it was and the operations still to come only with a later or the same earliest
 * completion. So the search never orders reads among themselves, which at a thousand concurrent
 * clients (16 operations in flight on a key at every moment, most of them reads) made the states
 * too many to hold. A state is therefore reached by one step or several, and the states are
 * explored by how many operations they linearized, fewest first. Values are written once, so a
 * value that a read still has to see is never overwritten (the read would have nothing left to
 * read), and the writes of values nobody read all leave the register in one state.
 *
 * <p>Two kinds of operation have no upper bound and may never take effect: writes of absent
 * (failed DELETEs) and writes of a value nobody read (failed PUTs). Those of a kind are alike but
 * for when they were invoked, and one invoked earlier can stand in for one invoked later wherever
 * that one takes effect, so those taken are always the earliest invoked: a state counts how many
 * of each were taken, and of states that differ only in those counts, only the ones with no other
 * taking fewer of both are kept. A write of absent only matters while the register holds a value;
 * a value nobody read only matters to a DELETE that answered 204 right after it, so it is taken
 * only there.
 */
final class RegisterLinearizability {

    /**
     * What the register holds after a write of a value nobody read: no read can follow such a
     * write until the value is overwritten, so which of them wrote last makes no difference, and
     * states that differ only in that are one. (The recorder's values never hold a NUL.)
     */
    private static final String UNREAD = "\u0000a value nobody read";

    /** The bounded operations, by invocation; the writes of values nobody read write {@link #UNREAD}. */
    private final List<RegisterOp> operations;
    /** The writes of absent without an upper bound, by invocation. */
    private final List<RegisterOp> unboundedDeletes;
    /** The writes of a value nobody read, without an upper bound, by invocation. */
    private final List<RegisterOp> unreadWrites;
    /** For each value read, the indexes in {@link #operations} of its reads, ascending. */
    private final Map<String, List<Integer>> readsOfValue = new HashMap<>();

    /**
     * Operations {@code 0 .. prefix - 1} of a segment are linearized, {@code prefix} is not, and
     * {@code prefix + i} is when {@code beyond} has bit {@code i}: the set stays as small as the
     * operations in flight, however long the segment.
     */
    private record State(int prefix, BitSet beyond, @Nullable String register) {

        boolean isLinearized(int operation) {
            return operation < prefix || beyond.get(operation - prefix);
        }

        /** The next not linearized at or after {@code operation}. */
        int pendingFrom(int operation) {
            return operation <= prefix ? prefix : prefix + beyond.nextClearBit(operation - prefix);
        }

        State linearize(int operation, @Nullable String after) {
            BitSet linearized = (BitSet) beyond.clone();
            linearized.set(operation - prefix);
            int done = linearized.nextClearBit(0);
            return new State(prefix + done, linearized.get(done, Math.max(done, linearized.length())), after);
        }
    }

    /** How many unbounded deletes and unread writes a state took. */
    private record Taken(int deletes, int writes) {

        static final Taken NONE = new Taken(0, 0);

        boolean allowsAllOf(Taken other) {
            return deletes <= other.deletes && writes <= other.writes;
        }
    }

    private RegisterLinearizability(List<RegisterOp> operations, List<RegisterOp> unboundedDeletes,
                                    List<RegisterOp> unreadWrites) {
        List<RegisterOp> sorted = byInvocation(operations);
        for (int i = 0; i < sorted.size(); i++) {
            RegisterOp operation = sorted.get(i);
            if (operation.kind() == RegisterOp.Kind.READ && operation.value() != null) {
                readsOfValue.computeIfAbsent(operation.value(), value -> new ArrayList<>()).add(i);
            }
        }
        this.operations = sorted.stream().map(operation -> operation.kind() == RegisterOp.Kind.WRITE
                && operation.value() != null && !readsOfValue.containsKey(operation.value())
                ? new RegisterOp(RegisterOp.Kind.WRITE, UNREAD, operation.invoke(), operation.complete(), operation.text())
                : operation).toList();
        this.unboundedDeletes = byInvocation(unboundedDeletes);
        this.unreadWrites = byInvocation(unreadWrites);
    }

    private static List<RegisterOp> byInvocation(List<RegisterOp> operations) {
        return operations.stream().sorted(Comparator.comparingLong(RegisterOp::invoke)).toList();
    }

    /**
     * Why the history is not linearizable, or empty when it is: {@code operations} have an upper
     * bound and must take effect; {@code unboundedDeletes} (writes of absent) and
     * {@code unreadWrites} (writes of values no operation read) may take effect at any time after
     * their invocation, or never.
     */
    static Optional<String> violation(List<RegisterOp> operations, List<RegisterOp> unboundedDeletes,
                                      List<RegisterOp> unreadWrites) {
        return new RegisterLinearizability(operations, unboundedDeletes, unreadWrites).violation();
    }

    private Optional<String> violation() {
        Map<State, List<Taken>> registers = new HashMap<>();
        keepMinimal(registers, new State(0, new BitSet(), null), Taken.NONE);
        int start = 0;
        long lastCompletion = Long.MIN_VALUE;
        for (int i = 0; i <= operations.size(); i++) {
            if (i == operations.size() || (i > start && operations.get(i).invoke() > lastCompletion)) {
                Optional<String> violation = linearize(start, i, registers);
                if (violation.isPresent() || i == operations.size()) {
                    return violation;
                }
                start = i;
            }
            lastCompletion = Math.max(lastCompletion, operations.get(i).complete());
        }
        throw new AssertionError("the loop returns at its last index");
    }

    /**
     * Linearizes the operations {@code from} .. {@code to - 1} from the states {@code registers}
     * (none of them linearized), which it replaces with the states after them.
     */
    private Optional<String> linearize(int from, int to, Map<State, List<Taken>> registers) {
        List<RegisterOp> segment = operations.subList(from, to);
        // the states by how many of the segment's operations they linearized
        List<Map<State, List<Taken>>> byDepth = new ArrayList<>();
        for (int depth = 0; depth <= segment.size(); depth++) {
            byDepth.add(new HashMap<>());
        }
        registers.forEach((state, takens) -> takens.forEach(taken -> reach(segment, state, taken, byDepth)));
        Map<State, List<Taken>> furthest = Map.of();
        for (int depth = 0; depth < segment.size(); depth++) {
            Map<State, List<Taken>> level = byDepth.set(depth, Map.of());
            if (!level.isEmpty()) {
                furthest = level;
                level.forEach((state, takens) -> takens.forEach(taken -> step(from, segment, state, taken, byDepth)));
            }
        }
        Map<State, List<Taken>> after = byDepth.get(segment.size());
        if (after.isEmpty()) {
            return Optional.of(explain(from, segment, furthest));
        }
        registers.clear();
        after.forEach((state, takens) -> takens.forEach(taken ->
                keepMinimal(registers, new State(0, new BitSet(), state.register()), taken)));
        return Optional.empty();
    }

    /**
     * Adds to {@code byDepth} the states that linearizing one more operation of the segment, which
     * starts at {@code from}, leads to.
     */
    private void step(int from, List<RegisterOp> segment, State state, Taken taken,
                      List<Map<State, List<Taken>>> byDepth) {
        long deadline = deadline(segment, state);
        boolean overwritable = readLater(from, segment, state) < 0;
        for (int i : earliestOfEachEffect(segment, state, deadline)) {
            RegisterOp operation = segment.get(i);
            if (operation.allows(state.register())) {
                if (operation.kind() == RegisterOp.Kind.READ || overwritable) {
                    reach(segment, state.linearize(i, operation.after(state.register())), taken, byDepth);
                }
            }
            else if (operation.kind() == RegisterOp.Kind.DELETE && available(unreadWrites, taken.writes(), deadline)) {
                reach(segment, state.linearize(i, null), new Taken(taken.deletes(), taken.writes() + 1), byDepth);
            }
        }
        if (state.register() != null && overwritable && available(unboundedDeletes, taken.deletes(), deadline)) {
            State absent = new State(state.prefix(), state.beyond(), null);
            Taken oneMore = new Taken(taken.deletes() + 1, taken.writes());
            State withReads = readsTaken(segment, absent);
            if (withReads.equals(absent)) {
                step(from, segment, absent, oneMore, byDepth);
            }
            else {
                keepMinimal(byDepth.get(depth(withReads)), withReads, oneMore);
            }
        }
    }

    /**
     * The operations that may take effect next in {@code state} (those not yet linearized invoked
     * by {@code deadline}), only the earliest to complete of those with the same effect (kind and
     * value): the writes of values nobody read are all alike, and so are the DELETEs that answered
     * 204. Taking a later-completing one first is never needed: in any order that does, the two can
     * swap places, as the earlier-completing one may stand where the other stood (it was invoked by
     * the deadline, so before any operation between the two completed) and the later-completing one
     * where the earlier one stood (no operation between them was invoked after the earlier one
     * completed). Without this, a key with twenty writes of unread values in flight at once (a
     * thousand clients) had a state for each subset of them taken, and the check ran out of heap.
     */
    private static Collection<Integer> earliestOfEachEffect(List<RegisterOp> segment, State state, long deadline) {
        Map<RegisterOp.Kind, Map<@Nullable String, Integer>> earliest = new EnumMap<>(RegisterOp.Kind.class);
        for (int i = state.prefix(); i < segment.size() && segment.get(i).invoke() <= deadline;
             i = state.pendingFrom(i + 1)) {
            RegisterOp operation = segment.get(i);
            earliest.computeIfAbsent(operation.kind(), kind -> new HashMap<>()).merge(operation.value(), i,
                    (kept, next) -> segment.get(next).complete() < segment.get(kept).complete() ? next : kept);
        }
        return earliest.values().stream().flatMap(byValue -> byValue.values().stream()).sorted().toList();
    }

    /**
     * The index in {@link #operations} of the first read of the value the register holds in
     * {@code state} that is still to be linearized, or -1: values are written once, so
     * overwriting the value then leaves that read nothing to read.
     */
    private int readLater(int from, List<RegisterOp> segment, State state) {
        List<Integer> reads = state.register() == null ? null : readsOfValue.get(state.register());
        if (reads == null) {
            return -1;
        }
        for (int read : reads) {
            if (read >= from + segment.size() || (read >= from && !state.isLinearized(read - from))) {
                return read;
            }
        }
        return -1;
    }

    /** Adds {@code state}, with the reads it allows taken, to {@code byDepth}. */
    private void reach(List<RegisterOp> segment, State state, Taken taken, List<Map<State, List<Taken>>> byDepth) {
        State withReads = readsTaken(segment, state);
        keepMinimal(byDepth.get(depth(withReads)), withReads, taken);
    }

    /** {@code state} with every read it allows linearized, as long as there is one invoked by the earliest completion. */
    private static State readsTaken(List<RegisterOp> segment, State state) {
        State taken = state;
        long deadline = deadline(segment, taken);
        // taking a read leaves the register as it was, so those passed over stay disallowed
        for (int i = taken.prefix(); i < segment.size() && segment.get(i).invoke() <= deadline;
             i = taken.pendingFrom(i + 1)) {
            RegisterOp operation = segment.get(i);
            if (operation.kind() == RegisterOp.Kind.READ && operation.allows(taken.register())) {
                taken = taken.linearize(i, taken.register());
                deadline = deadline(segment, taken);
            }
        }
        return taken;
    }

    private static int depth(State state) {
        return state.prefix() + state.beyond().cardinality();
    }

    /** Whether the next of {@code unbounded} not taken was invoked by {@code deadline}. */
    private static boolean available(List<RegisterOp> unbounded, int taken, long deadline) {
        return taken < unbounded.size() && unbounded.get(taken).invoke() <= deadline;
    }

    /** Adds {@code state} with {@code taken} unless it is there with fewer taken, and drops those with more. */
    private static void keepMinimal(Map<State, List<Taken>> states, State state, Taken taken) {
        List<Taken> takens = states.computeIfAbsent(state, any -> new ArrayList<>(1));
        if (takens.stream().noneMatch(kept -> kept.allowsAllOf(taken))) {
            takens.removeIf(taken::allowsAllOf);
            takens.add(taken);
        }
    }

    /**
     * The earliest completion of the operations not yet linearized: the next one must have been
     * invoked by then. Those invoked later complete later, so the scan stops at the first of them.
     */
    private static long deadline(List<RegisterOp> segment, State state) {
        long deadline = Long.MAX_VALUE;
        for (int i = state.prefix(); i < segment.size() && segment.get(i).invoke() <= deadline;
             i = state.pendingFrom(i + 1)) {
            deadline = Math.min(deadline, segment.get(i).complete());
        }
        return deadline;
    }

    /**
     * The operation that had to take effect next in one of the furthest states, what the register
     * could hold then, and the operations around it: those concurrent with it, the writes of the
     * values involved, the last deletion when absent is one of them, and the unbounded operations
     * invoked since the first of those concurrent with it.
     */
    private String explain(int from, List<RegisterOp> segment, Map<State, List<Taken>> furthest) {
        State state = furthest.keySet().iterator().next();
        List<RegisterOp> pending = new ArrayList<>();
        for (int i = state.prefix(); i < segment.size(); i = state.pendingFrom(i + 1)) {
            pending.add(segment.get(i));
        }
        RegisterOp stuck = pending.stream().min(Comparator.comparingLong(RegisterOp::complete)).orElseThrow();
        int stranded = stuck.kind() == RegisterOp.Kind.READ ? -1 : readLater(from, segment, state);
        if (stranded >= 0) {
            RegisterOp read = operations.get(stranded);
            return read.text() + " cannot take effect: it reads " + read.value() + ", which " + stuck.text()
                    + " overwrites before the read was invoked, and no operation writes again; the operations around it:\n"
                    + Stream.concat(operations.stream().filter(each -> each.kind() == RegisterOp.Kind.WRITE
                            && read.value().equals(each.value())), Stream.of(stuck, read))
                    .distinct().sorted(Comparator.comparingLong(RegisterOp::invoke)).map(each -> "    " + each.text())
                    .collect(Collectors.joining("\n"));
        }
        List<RegisterOp> concurrent = pending.stream().filter(each -> each.invoke() <= stuck.complete()).toList();
        long since = concurrent.stream().mapToLong(RegisterOp::invoke).min().orElseThrow();
        Set<@Nullable String> registers = new LinkedHashSet<>();
        furthest.keySet().forEach(each -> registers.add(each.register()));
        Set<@Nullable String> values = new LinkedHashSet<>(registers);
        values.add(stuck.value());
        values.remove(UNREAD);
        List<RegisterOp> window = new ArrayList<>(concurrent);
        operations.stream().filter(each -> each.kind() == RegisterOp.Kind.WRITE && each.value() != null
                && values.contains(each.value())).forEach(window::add);
        if (values.contains(null)) {
            lastDeletion(from, segment, state).ifPresent(window::add);
        }
        Stream.concat(unboundedDeletes.stream(), unreadWrites.stream())
                .filter(each -> each.invoke() >= since && each.invoke() <= stuck.complete()).forEach(window::add);
        return stuck.text() + " cannot take effect: after the operations before it the register holds "
                + registers.stream().map(value -> value == null ? "absent" : value.equals(UNREAD) ? "a value nobody read"
                        : value).collect(Collectors.joining(" or "))
                + "; the operations around it:\n" + window.stream().distinct()
                .sorted(Comparator.comparingLong(RegisterOp::invoke)).map(each -> "    " + each.text())
                .collect(Collectors.joining("\n"));
    }

    /** Of the bounded operations linearized in {@code state} that set the register to absent, the one invoked last. */
    private Optional<RegisterOp> lastDeletion(int from, List<RegisterOp> segment, State state) {
        List<RegisterOp> linearized = new ArrayList<>(operations.subList(0, from));
        for (int i = 0; i < segment.size(); i++) {
            if (state.isLinearized(i)) {
                linearized.add(segment.get(i));
            }
        }
        return linearized.stream().filter(each -> each.kind() == RegisterOp.Kind.DELETE
                        || (each.kind() == RegisterOp.Kind.WRITE && each.value() == null))
                .max(Comparator.comparingLong(RegisterOp::invoke));
    }
}
