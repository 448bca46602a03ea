package dev.agentswarm.orchestrator.swarm;

import dev.agentswarm.core.reward.AnswerText;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One orchestrator round as data: each sub-task of the plan pending, running, done, failed,
 * cancelled or skipped; which may start (all dependencies done); what a dependent is given; when
 * the round's {@link Join} is reached; and the observation the orchestrator reads at the end. A
 * failure skips everything that depends on it, transitively. No messages, no clocks: the
 * {@link Orchestrator} drives it.
 */
public final class RoundState {

    public enum State { PENDING, RUNNING, DONE, FAILED, CANCELLED, SKIPPED;

        public boolean ended() {
            return this != PENDING && this != RUNNING;
        }
    }

    /** Where a sub-task stands; {@code steps} and {@code tokens} add up over its attempts. */
    public record Status(State state, String answer, String detail, int attempts, long steps, long tokens) {}

    private final int round;
    private final Plan plan;
    private final Map<String, Status> status = new LinkedHashMap<>();
    private final Map<String, List<String>> dependents = new HashMap<>();
    private String stoppedBecause;

    public RoundState(int round, Plan plan) {
        this.round = round;
        this.plan = plan;
        for (SubTask t : plan.subTasks()) {
            status.put(t.id(), new Status(State.PENDING, null, null, 0, 0, 0));
            for (String d : t.dependsOn()) dependents.computeIfAbsent(d, k -> new ArrayList<>()).add(t.id());
        }
    }

    /**
     * A round as a snapshot left it: every sub-task of {@code plan} with its status (in plan order,
     * whatever order {@code statuses} has), and why it stopped (null while it goes on).
     * @throws IllegalArgumentException when the statuses are not those of the plan's sub-tasks
     */
    public static RoundState restore(int round, Plan plan, Map<String, Status> statuses, String stoppedBecause) {
        RoundState state = new RoundState(round, plan);
        if (!statuses.keySet().equals(state.status.keySet())) {
            throw new IllegalArgumentException("round " + round + " has sub-tasks " + state.status.keySet() + " but statuses for "
                    + statuses.keySet());
        }
        for (String id : state.status.keySet()) state.status.put(id, statuses.get(id));
        state.stoppedBecause = stoppedBecause;
        return state;
    }

    public int round() {
        return round;
    }

    public Plan plan() {
        return plan;
    }

    public Status status(String id) {
        return status.get(id);
    }

    /** Pending sub-tasks whose dependencies are all done, in plan order, at most {@code slots}; they are now running. */
    public List<SubTask> start(int slots) {
        List<SubTask> ready = ready(slots);
        for (SubTask t : ready) started(t.id());
        return ready;
    }

    /** Pending sub-tasks whose dependencies are all done, in plan order, at most {@code slots}; nothing changes. */
    public List<SubTask> ready(int slots) {
        List<SubTask> ready = new ArrayList<>();
        if (stoppedBecause != null) return ready;
        for (SubTask t : plan.subTasks()) {
            if (ready.size() >= slots) break;
            if (status.get(t.id()).state() == State.PENDING && dependenciesDone(t)) ready.add(t);
        }
        return ready;
    }

    /** Sub-task {@code id}'s first attempt starts; it must be pending with its dependencies done, and the round not stopped. */
    public void started(String id) {
        Status s = status.get(id);
        if (s == null) throw new IllegalStateException("no sub-task " + id + " in round " + round);
        if (s.state() != State.PENDING || stoppedBecause != null || !dependenciesDone(plan.subTask(id))) {
            throw new IllegalStateException("sub-task " + id + " of round " + round + " cannot start: " + s.state()
                    + (stoppedBecause != null ? ", the round stopped (" + stoppedBecause + ")" : ""));
        }
        status.put(id, new Status(State.RUNNING, null, null, s.attempts() + 1, s.steps(), s.tokens()));
    }

    private boolean dependenciesDone(SubTask t) {
        for (String d : t.dependsOn()) if (status.get(d).state() != State.DONE) return false;
        return true;
    }

    /** Every sub-task's status, in plan order (a copy). */
    public Map<String, Status> statuses() {
        return new LinkedHashMap<>(status);
    }

    /** A running sub-task goes again (a retry): one more attempt, its steps so far kept. */
    public void retry(String id, long steps, long tokens) {
        Status s = running(id);
        status.put(id, new Status(State.RUNNING, null, null, s.attempts() + 1, s.steps() + steps, s.tokens() + tokens));
    }

    public void done(String id, String answer, long steps, long tokens) {
        end(id, State.DONE, answer, null, steps, tokens);
    }

    /** A failed sub-task skips every pending sub-task that depends on it, directly or not. */
    public void failed(String id, String why, long steps, long tokens) {
        end(id, State.FAILED, null, why, steps, tokens);
        skipDependents(id, "depends on " + id + ", which failed");
    }

    public void cancelled(String id, String why, long steps, long tokens) {
        end(id, State.CANCELLED, null, why, steps, tokens);
        skipDependents(id, "depends on " + id + ", which was cancelled");
    }

    private void end(String id, State state, String answer, String detail, long steps, long tokens) {
        Status s = running(id);
        status.put(id, new Status(state, answer, detail, s.attempts(), s.steps() + steps, s.tokens() + tokens));
    }

    private Status running(String id) {
        Status s = status.get(id);
        if (s == null || s.state() != State.RUNNING) throw new IllegalStateException("sub-task " + id + " is not running: " + s);
        return s;
    }

    private void skipDependents(String id, String why) {
        for (String d : dependents.getOrDefault(id, List.of())) {
            Status s = status.get(d);
            if (s.state() != State.PENDING) continue;
            status.put(d, new Status(State.SKIPPED, null, why, s.attempts(), s.steps(), s.tokens()));
            skipDependents(d, "depends on " + d + ", which was skipped");
        }
    }

    /**
     * Nothing more starts (join reached, budget spent, orchestrator gone): pending sub-tasks are skipped
     * with {@code why}; the ids still running are returned, for the caller to cancel.
     */
    public List<String> stop(String why) {
        if (stoppedBecause == null) stoppedBecause = why;
        List<String> running = new ArrayList<>();
        for (Map.Entry<String, Status> e : status.entrySet()) {
            Status s = e.getValue();
            if (s.state() == State.PENDING) {
                status.put(e.getKey(), new Status(State.SKIPPED, null, why, s.attempts(), s.steps(), s.tokens()));
            } else if (s.state() == State.RUNNING) {
                running.add(e.getKey());
            }
        }
        return running;
    }

    public String stoppedBecause() {
        return stoppedBecause;
    }

    /** The answers of the sub-tasks {@code task} depends on, in its order. */
    public Map<String, String> dependencyAnswers(SubTask task) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String d : task.dependsOn()) out.put(d, status.get(d).answer());
        return out;
    }

    /** Whether the plan's join is satisfied: all ended, k answers in, or more than half of the sub-tasks agreeing. */
    public boolean joinReached() {
        Join join = plan.join();
        return switch (join.kind()) {
            case ALL -> over();
            case FIRST_K -> count(State.DONE) >= join.k() || over();
            case QUORUM -> majorityAnswer() != null || over();
        };
    }

    /** The answer more than half of the round's sub-tasks gave (compared normalised), or null. */
    public String majorityAnswer() {
        Map<String, Integer> votes = new HashMap<>();
        for (Status s : status.values()) {
            if (s.state() != State.DONE || s.answer() == null) continue;
            String key = AnswerText.normalize(s.answer());
            if (votes.merge(key, 1, Integer::sum) * 2 > status.size()) return s.answer();
        }
        return null;
    }

    /** Every sub-task has ended: nothing runs and nothing can start. */
    public boolean over() {
        for (Status s : status.values()) if (!s.state().ended()) return false;
        return true;
    }

    public boolean anyRunning() {
        return count(State.RUNNING) > 0;
    }

    public int count(State state) {
        int n = 0;
        for (Status s : status.values()) if (s.state() == state) n++;
        return n;
    }

    /** Steps of each sub-task over its attempts, for {@link CriticalSteps}. */
    public Map<String, Long> steps() {
        Map<String, Long> out = new HashMap<>();
        status.forEach((id, s) -> out.put(id, s.steps()));
        return out;
    }

    /**
     * What the orchestrator reads back: a line per sub-task with its state and answer (each cut to
     * {@code maxAnswerChars}), then what is missing; {@code preface} (a spent budget) first.
     */
    public String observation(String preface, int maxAnswerChars) {
        StringBuilder b = new StringBuilder();
        if (preface != null) b.append(preface).append('\n');
        b.append("Round ").append(round).append(": ").append(status.size()).append(" sub-agents, ")
                .append(count(State.DONE)).append(" answered");
        if (plan.join().kind() != Join.Kind.ALL) b.append(" (join ").append(plan.join().describe()).append(')');
        b.append('.');
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, Status> e : status.entrySet()) {
            Status s = e.getValue();
            b.append("\n[").append(e.getKey()).append("] ");
            switch (s.state()) {
                case DONE -> b.append("answer: ").append(cut(s.answer(), maxAnswerChars));
                case FAILED -> b.append("failed after ").append(s.attempts()).append(s.attempts() == 1 ? " attempt: " : " attempts: ")
                        .append(cut(s.detail(), 300));
                case CANCELLED -> b.append("cancelled: ").append(s.detail());
                case SKIPPED -> b.append("not run: ").append(s.detail());
                default -> b.append(s.state().name().toLowerCase(java.util.Locale.ROOT));
            }
            if (s.state() != State.DONE) missing.add(e.getKey());
        }
        if (plan.join().kind() == Join.Kind.QUORUM && majorityAnswer() != null) {
            b.append("\nMajority answer: ").append(cut(majorityAnswer(), maxAnswerChars));
        }
        if (!missing.isEmpty()) b.append("\nMissing: ").append(String.join(", ", missing)).append('.');
        return b.toString();
    }

    private static String cut(String s, int max) {
        if (s == null) return "";
        return s.length() <= max ? s : s.substring(0, max) + " […" + (s.length() - max) + " more characters]";
    }
}
