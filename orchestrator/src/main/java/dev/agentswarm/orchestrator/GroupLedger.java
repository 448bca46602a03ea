package dev.agentswarm.orchestrator;

import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The coordinator's book-keeping, without a mailbox: which episodes are out (and since when), which
 * groups are complete, which are too stale to train on. Episodes go out a whole group at a time —
 * {@code generations} episodes of one task — while at most {@code maxInflight} are out; tasks are
 * drawn in order from a cursor that wraps around. An episode id is accepted at most once.
 *
 * <p>With {@link DynamicSampling} on (DAPO's, as verl's {@code filter_groups}), a group whose episode
 * rewards are all equal teaches nothing and is dropped as it completes, so more groups are launched
 * until a batch holds {@code groups-per-step} informative ones. At most {@code maxNumGenBatches} ×
 * {@code groups-per-step} groups complete per batch: past that the batch goes with the informative
 * groups it has (or, with none, the last uninformative ones, which the learner drops and logs), so a
 * policy that never varies does not keep the run sampling forever.
 *
 * <p>An episode that failed for its infrastructure ({@link InfraFailure}: policy server down, crash,
 * sandbox or MCP server down, scorer failure) is not its group's answer: it runs again under a new
 * attempt id ({@code <group>#<k>-retry<n>}, a fresh episode in a fresh environment), up to
 * {@code infraRetries} times; a group one of whose episodes still fails is dropped whole, its mates
 * cancelled, never trained partial.
 */
public final class GroupLedger {

    /** One episode to send. */
    public record Launch(String episodeId, String groupId, Task task) {}

    /**
     * Complete groups for one update, and how many complete groups were dropped since the last batch:
     * as too stale, and as uninformative (all rewards equal, under dynamic sampling).
     */
    public record Batch(List<List<Trajectory>> groups, int staleDropped, int uninformativeDropped) {}

    /**
     * What an answer did: {@code taken} when it was new (else it is ignored); for an infrastructure failure
     * ({@code infra}), the new attempt to send ({@code again}), or, when retries ran out, the group dropped
     * ({@code dropped}) and the ids of its episodes still out, to cancel ({@code cancel}).
     */
    public record Accepted(boolean taken, InfraFailure infra, Launch again, boolean dropped, List<String> cancel) {
        static final Accepted IGNORED = new Accepted(false, null, null, false, List.of());
        static final Accepted ANSWER = new Accepted(true, null, null, false, List.of());
    }

    /** DAPO's dynamic sampling with refill; {@code maxNumGenBatches} 0 = no cap (verl's name and meaning). */
    public record DynamicSampling(boolean on, int maxNumGenBatches) {
        public static final DynamicSampling OFF = new DynamicSampling(false, 0);

        public DynamicSampling {
            if (maxNumGenBatches < 0) throw new IllegalArgumentException("max-num-gen-batches must be >= 0 (0 = no cap), got " + maxNumGenBatches);
        }
    }

    /** An episode out: its group, task, when it was sent, its place {@code slot} in the group and its {@code attempt} (0 first). */
    private record Out(String groupId, Task task, long sentAtMillis, int slot, int attempt) {
        Out sentAt(long millis) {
            return new Out(groupId, task, millis, slot, attempt);
        }
    }

    private final List<Task> tasks;
    private final int generations;
    private final int maxInflight;
    private final int groupsPerStep;
    private final int maxStaleness;
    private final DynamicSampling dynamic;
    private final int infraRetries;
    private final Map<String, Out> inflight = new LinkedHashMap<>();
    private final Map<String, List<Trajectory>> open = new HashMap<>();
    private final Deque<List<Trajectory>> ready = new ArrayDeque<>();
    /** The latest groups dropped as uninformative, at most groups-per-step: what a capped batch with nothing else sends. */
    private final Deque<List<Trajectory>> uninformative = new ArrayDeque<>();
    /** Where in the task order each group not yet trained on (or dropped) was launched. */
    private final Map<String, Long> pending = new HashMap<>();
    private long cursor;
    private long groupsLaunched;
    private int staleDropped;
    private int uninformativeDropped;
    private long infraDropped;
    private int completedSinceBatch;

    /** @param cursor where in the task list to start (a resumed run continues where it stopped) */
    public GroupLedger(List<Task> tasks, int generations, int maxInflight, int groupsPerStep, int maxStaleness, long cursor) {
        this(tasks, generations, maxInflight, groupsPerStep, maxStaleness, cursor, DynamicSampling.OFF, 0);
    }

    public GroupLedger(List<Task> tasks, int generations, int maxInflight, int groupsPerStep, int maxStaleness, long cursor,
                       DynamicSampling dynamic) {
        this(tasks, generations, maxInflight, groupsPerStep, maxStaleness, cursor, dynamic, 0);
    }

    /** @param infraRetries how many times an episode that failed for its infrastructure runs again before its group is dropped */
    public GroupLedger(List<Task> tasks, int generations, int maxInflight, int groupsPerStep, int maxStaleness, long cursor,
                       DynamicSampling dynamic, int infraRetries) {
        if (tasks.isEmpty()) throw new IllegalArgumentException("no tasks to train on");
        if (generations < 2) throw new IllegalArgumentException("num-generations must be >= 2, got " + generations);
        if (maxInflight < generations) {
            throw new IllegalArgumentException("max-inflight (" + maxInflight + ") must hold at least one group of " + generations);
        }
        if (groupsPerStep < 1) throw new IllegalArgumentException("groups-per-step must be >= 1, got " + groupsPerStep);
        if (maxStaleness < 0) throw new IllegalArgumentException("max-staleness must be >= 0, got " + maxStaleness);
        if (infraRetries < 0) throw new IllegalArgumentException("infra-retries must be >= 0, got " + infraRetries);
        this.tasks = List.copyOf(tasks);
        this.generations = generations;
        this.maxInflight = maxInflight;
        this.groupsPerStep = groupsPerStep;
        this.maxStaleness = maxStaleness;
        this.cursor = cursor;
        this.dynamic = dynamic;
        this.infraRetries = infraRetries;
    }

    /** Whole groups to send now, at most {@code maxGroups}, as far as {@code max-inflight} allows. */
    public List<Launch> launch(int maxGroups, long nowMillis) {
        List<Launch> out = new ArrayList<>();
        for (int g = 0; g < maxGroups && inflight.size() + generations <= maxInflight; g++) {
            Task task = tasks.get((int) Math.floorMod(cursor, (long) tasks.size()));
            String groupId = "g" + groupsLaunched + "-" + task.id();
            pending.put(groupId, cursor);
            cursor++;
            groupsLaunched++;
            open.put(groupId, new ArrayList<>());
            for (int k = 0; k < generations; k++) {
                String episodeId = groupId + "#" + k;
                inflight.put(episodeId, new Out(groupId, task, nowMillis, k, 0));
                out.add(new Launch(episodeId, groupId, task));
            }
        }
        return out;
    }

    /**
     * Records an answer; not {@code taken} when the episode is not out (unknown, already answered, or of
     * a group dropped). One that failed for its infrastructure is not its group's: see {@link Accepted}.
     */
    public Accepted accept(Trajectory t, long nowMillis) {
        Out o = inflight.remove(t.episodeId());
        if (o == null) return Accepted.IGNORED;
        InfraFailure infra = t.infraFailure();
        if (infra != null) {
            if (o.attempt() < infraRetries) {
                String id = o.groupId() + "#" + o.slot() + "-retry" + (o.attempt() + 1);
                inflight.put(id, new Out(o.groupId(), o.task(), nowMillis, o.slot(), o.attempt() + 1));
                return new Accepted(true, infra, new Launch(id, o.groupId(), o.task()), false, List.of());
            }
            return new Accepted(true, infra, null, true, dropGroup(o.groupId()));
        }
        List<Trajectory> group = open.get(o.groupId());
        group.add(t);
        if (group.size() == generations) {
            open.remove(o.groupId());
            completedSinceBatch++;
            if (dynamic.on() && allRewardsEqual(group)) {
                uninformativeDropped++;
                pending.remove(o.groupId()); // its task was sampled; a resume need not redo it
                uninformative.add(List.copyOf(group));
                if (uninformative.size() > groupsPerStep) uninformative.poll();
            } else {
                ready.add(List.copyOf(group));
            }
        }
        return Accepted.ANSWER;
    }

    /** Drops a group whose episode kept failing for its infrastructure; returns its episodes still out. */
    private List<String> dropGroup(String groupId) {
        List<String> out = new ArrayList<>();
        inflight.entrySet().removeIf(e -> {
            boolean mate = e.getValue().groupId().equals(groupId);
            if (mate) out.add(e.getKey());
            return mate;
        });
        open.remove(groupId);
        pending.remove(groupId); // its task was sampled and given up on; a resume need not redo it
        infraDropped++;
        return out;
    }

    /** Groups dropped so far because an episode of theirs kept failing for its infrastructure. */
    public long infraDropped() {
        return infraDropped;
    }

    private static boolean allRewardsEqual(List<Trajectory> group) {
        double first = total(group.get(0));
        for (Trajectory t : group) if (Math.abs(total(t) - first) > 1e-9) return false;
        return true;
    }

    private static double total(Trajectory t) {
        return t.reward() == null ? 0 : t.reward().total();
    }

    /**
     * The next {@code groups-per-step} complete groups, dropping (and counting) those sampled more
     * than {@code max-staleness} versions before {@code version}; null until enough are ready.
     */
    public Batch takeBatch(long version) {
        ready.removeIf(g -> {
            boolean stale = staleness(g, version) > maxStaleness;
            if (stale) {
                staleDropped++;
                pending.remove(g.get(0).groupId());
            }
            return stale;
        });
        List<List<Trajectory>> groups = new ArrayList<>();
        if (ready.size() >= groupsPerStep) {
            for (int i = 0; i < groupsPerStep; i++) groups.add(ready.poll());
        } else if (capReached()) {
            groups.addAll(ready.isEmpty() ? uninformative : ready);
            ready.clear();
        }
        if (groups.isEmpty()) return null;
        for (List<Trajectory> g : groups) pending.remove(g.get(0).groupId());
        Batch b = new Batch(groups, staleDropped, uninformativeDropped);
        staleDropped = 0;
        uninformativeDropped = 0;
        completedSinceBatch = 0;
        uninformative.clear();
        return b;
    }

    private boolean capReached() {
        return dynamic.maxNumGenBatches() > 0 && completedSinceBatch >= (long) dynamic.maxNumGenBatches() * groupsPerStep;
    }

    /** Versions between {@code version} and the oldest policy that sampled a turn of the group. */
    public static long staleness(List<Trajectory> group, long version) {
        long oldest = version;
        for (Trajectory t : group) {
            for (Turn turn : t.assistantTurns()) if (turn.policyVersion() >= 0) oldest = Math.min(oldest, turn.policyVersion());
        }
        return version - oldest;
    }

    /** Episodes out for longer than {@code timeoutMillis} (lost with a node, say), marked as sent again now. */
    public List<Launch> overdue(long nowMillis, long timeoutMillis) {
        List<Launch> out = new ArrayList<>();
        for (Map.Entry<String, Out> e : inflight.entrySet()) {
            Out o = e.getValue();
            if (nowMillis - o.sentAtMillis() >= timeoutMillis) {
                out.add(new Launch(e.getKey(), o.groupId(), o.task()));
                e.setValue(o.sentAt(nowMillis));
            }
        }
        return out;
    }

    /** The episode again, marked as sent now, when it is still out (not answered); null otherwise. */
    public Launch relaunch(String episodeId, long nowMillis) {
        Out o = inflight.get(episodeId);
        if (o == null) return null;
        inflight.put(episodeId, o.sentAt(nowMillis));
        return new Launch(episodeId, o.groupId(), o.task());
    }

    public List<String> inflightIds() {
        return List.copyOf(inflight.keySet());
    }

    public int inflight() {
        return inflight.size();
    }

    public int readyGroups() {
        return ready.size();
    }

    /** The next task to launch. */
    public long cursor() {
        return cursor;
    }

    /**
     * Where a resumed run should start: the launch position of the oldest group not yet handed to
     * the learner (out, or complete and waiting), so none of their tasks is skipped; the cursor when
     * there is none.
     */
    public long resumeCursor() {
        return pending.values().stream().mapToLong(Long::longValue).min().orElse(cursor);
    }
}
