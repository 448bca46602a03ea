package dev.agentswarm.orchestrator;

import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Training mode's conductor: keeps at most {@code max-inflight} episodes running on the worker
 * region, a group of {@code num-generations} per task; appends every answer to
 * {@code trajectories.jsonl} before anything else sees it; hands {@code groups-per-step} complete
 * groups to the learner, one batch at a time, dropping groups sampled more than
 * {@code max-staleness} versions ago; writes each update's metrics to {@code metrics.jsonl}; and
 * stops after {@code steps} updates. Generation never waits for an update unless {@code sync} is
 * set, which runs rollouts and updates in turn (the synchronous baseline).
 *
 * <p>Nothing is lost when worker nodes come and go. Workers acknowledge each episode with the node
 * that runs it; when that node is removed from the cluster (it died and was downed, or left), its
 * episodes are sent again at once under the same ids, and sharding runs them on the nodes that
 * remain. An episode no worker acknowledged within {@code ack-timeout} (sent towards a node as it
 * died), one a worker gave back while handing off, and one not answered within
 * {@code episode-timeout} are sent again too. Only the first answer of an id is taken: a second
 * (from an attempt thought lost) is ignored, so every id is in {@code trajectories.jsonl} once.
 *
 * <p>An answer that failed for its infrastructure (policy server down, crash, sandbox or MCP server
 * down, scorer failure) is written to {@code trajectories.jsonl} with its cause but never reaches the
 * learner: it runs again under a new attempt id, up to {@code infra-retries} times, after which its
 * group is dropped whole ({@link GroupLedger}). {@code metrics.jsonl} and {@code /metrics} count both
 * by cause ({@code infra_retried}, {@code groups_dropped_infra}).
 */
public final class RolloutCoordinator extends AbstractBehavior<RolloutCoordinator.Command> {

    public interface Command extends NoSerializationVerificationNeeded {}

    private record Answered(Trajectory trajectory) implements Command {}

    private record Trained(LearnerProtocol.TrainReply reply) implements Command {}

    private enum CheckOverdue implements Command { INSTANCE }

    private record Receipted(WorkerProtocol.Receipt receipt) implements Command {}

    /** A cluster node left the membership: what ran there is lost. */
    public record NodeRemoved(String node) implements Command {}

    private record MemberChanged(org.apache.pekko.cluster.ClusterEvent.MemberEvent event) implements Command {}

    public record Settings(int generations, int maxInflight, int groupsPerStep, int maxStaleness, int steps, boolean sync,
                           Duration episodeTimeout, GroupLedger.DynamicSampling dynamicSampling, Duration ackTimeout, int infraRetries) {
        /** How long a sent episode may go without a worker's receipt before it is sent again, unless configured. */
        public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(10);
        /** Attempts again of an episode that failed for its infrastructure before its group is dropped, unless configured. */
        public static final int DEFAULT_INFRA_RETRIES = 2;

        public Settings(int generations, int maxInflight, int groupsPerStep, int maxStaleness, int steps, boolean sync,
                        Duration episodeTimeout, GroupLedger.DynamicSampling dynamicSampling, Duration ackTimeout) {
            this(generations, maxInflight, groupsPerStep, maxStaleness, steps, sync, episodeTimeout, dynamicSampling, ackTimeout,
                    DEFAULT_INFRA_RETRIES);
        }

        public Settings(int generations, int maxInflight, int groupsPerStep, int maxStaleness, int steps, boolean sync,
                        Duration episodeTimeout) {
            this(generations, maxInflight, groupsPerStep, maxStaleness, steps, sync, episodeTimeout, GroupLedger.DynamicSampling.OFF,
                    DEFAULT_ACK_TIMEOUT);
        }

        public Settings {
            if (steps < 1) throw new IllegalArgumentException("steps must be >= 1, got " + steps);
            if (episodeTimeout.isNegative() || episodeTimeout.isZero()) throw new IllegalArgumentException("episode-timeout must be > 0");
            if (ackTimeout.isNegative() || ackTimeout.isZero()) throw new IllegalArgumentException("ack-timeout must be > 0");
            if (infraRetries < 0) throw new IllegalArgumentException("infra-retries must be >= 0, got " + infraRetries);
        }
    }

    /**
     * How a run ended; {@code first} and {@code last} are the learner's metrics of this run's first
     * and last update (empty when it made none), {@code firstStep} the step number of the first;
     * {@code retrained} counts batches trained again for a learner that came back from a checkpoint;
     * {@code infraRetried} episodes run again and {@code groupsDroppedInfra} groups dropped because of their infrastructure.
     */
    public record Summary(long steps, long version, long episodes, long staleDropped, long resent, long cursor, double wallSeconds,
                          String error, long firstStep, Map<String, Double> first, Map<String, Double> last, long retrained,
                          long infraRetried, long groupsDroppedInfra) {}

    /**
     * Where episodes run and where batches go; {@code runDir} is the run folder the learner opens
     * (absolute, on storage every learner node reads), null for a learner made for this run alone.
     */
    public record Wiring(WorkerRoute workers, ActorRef<LearnerProtocol.Command> learner, String runDir) {
        public Wiring(WorkerRoute workers, ActorRef<LearnerProtocol.Command> learner) {
            this(workers, learner, null);
        }
    }

    private final Settings settings;
    private final EpisodeSpec spec;
    private final Wiring wiring;
    private final GroupLedger ledger;
    private final TrajectoryLog trajectories;
    private final MetricsLog metrics;
    private final LongConsumer onStep;
    private final CompletableFuture<Summary> done;
    private final ActorRef<Trajectory> answers;
    private final ActorRef<WorkerProtocol.Receipt> receipts;
    private final EpisodePlacements placements = new EpisodePlacements();
    private final ActorRef<LearnerProtocol.TrainReply> trained;
    private final LearnerBatchQueue toLearner = new LearnerBatchQueue(this::tellLearner);
    private final long learnerPartBytes;
    private long version;
    private long steps;
    private long batches;
    private int batchesWithoutUpdate;
    private String lastEpisodeError;
    /** Episodes run again, and groups dropped, because of their infrastructure: the run ends at {@link #MAX_GROUPS_DROPPED_IN_A_ROW} in a row. */
    private final InfraFailureCounts infra;
    private final RunReport report;

    /** Batches in a row the learner may refuse or find empty before the run ends with why. */
    static final int MAX_BATCHES_WITHOUT_UPDATE = 20;

    /**
     * Groups in a row dropped for their infrastructure, with not one answer in between, before the run ends
     * with why: a policy server that is down for good would otherwise have the run sample forever.
     */
    static final int MAX_GROUPS_DROPPED_IN_A_ROW = 20;

    public static Behavior<Command> create(Settings settings, List<Task> tasks, long cursor, EpisodeSpec spec, Wiring wiring,
                                           long startVersion, long startStep, MetricsLog trajectories, MetricsLog metrics,
                                           LongConsumer onStep, CompletableFuture<Summary> done) {
        GroupLedger ledger = new GroupLedger(tasks, settings.generations(), settings.maxInflight(), settings.groupsPerStep(),
                settings.maxStaleness(), cursor, settings.dynamicSampling(), settings.infraRetries());
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            RolloutCoordinator c = new RolloutCoordinator(ctx, timers, settings, spec, wiring, ledger, startVersion, startStep,
                    trajectories, metrics, onStep, done);
            ctx.watch(wiring.learner()); // a learner that dies ends the run with why, instead of leaving it waiting
            c.fill();
            return c;
        }));
    }

    private RolloutCoordinator(ActorContext<Command> ctx, TimerScheduler<Command> timers, Settings settings, EpisodeSpec spec,
                               Wiring wiring, GroupLedger ledger, long version, long steps, MetricsLog trajectories, MetricsLog metrics,
                               LongConsumer onStep, CompletableFuture<Summary> done) {
        super(ctx);
        this.settings = settings;
        this.spec = spec;
        this.wiring = wiring;
        this.ledger = ledger;
        this.version = version;
        this.steps = steps;
        this.trajectories = new TrajectoryLog(trajectories);
        this.metrics = metrics;
        this.onStep = onStep;
        this.done = done;
        this.answers = ctx.messageAdapter(Trajectory.class, Answered::new);
        this.receipts = ctx.messageAdapter(WorkerProtocol.Receipt.class, Receipted::new);
        this.trained = ctx.messageAdapter(LearnerProtocol.TrainReply.class, Trained::new);
        this.infra = new InfraFailureCounts(InfraMeters.of(ctx.getSystem()));
        this.report = new RunReport(infra);
        // Half a large frame per part: the size estimate is rough.
        this.learnerPartBytes = ctx.getSystem().settings().config().hasPath("pekko.remote.artery.advanced.maximum-large-frame-size")
                ? ctx.getSystem().settings().config().getBytes("pekko.remote.artery.advanced.maximum-large-frame-size") / 2
                : Long.MAX_VALUE;
        placements.members(NodeLoss.follow(ctx, MemberChanged::new));
        Duration every = min(min(settings.episodeTimeout(), settings.ackTimeout()).dividedBy(4), Duration.ofSeconds(1));
        timers.startTimerWithFixedDelay(CheckOverdue.INSTANCE, every.isZero() ? Duration.ofMillis(1) : every);
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Answered.class, this::onAnswered)
                .onMessage(Trained.class, this::onTrained)
                .onMessageEquals(CheckOverdue.INSTANCE, this::onCheckOverdue)
                .onMessage(Receipted.class, this::onReceipt)
                .onMessage(NodeRemoved.class, this::onNodeRemoved)
                .onMessage(MemberChanged.class, this::onMemberChanged)
                .onSignal(Terminated.class, t -> finish("the learner stopped (see its log); the run ends at step " + steps))
                .build();
    }

    private Behavior<Command> onAnswered(Answered a) {
        Trajectory t = a.trajectory();
        if (EpisodePlacements.givenBack(t)) { // a worker handing off gave it back: it runs again, under the same id
            resend(t.episodeId(), System.currentTimeMillis() + settings.ackTimeout().toMillis());
            return this;
        }
        GroupLedger.Accepted accepted = ledger.accept(t, System.currentTimeMillis());
        if (!accepted.taken()) return this; // an answer to a re-sent episode that had answered already, or of a dropped group
        placements.forget(t.episodeId());
        try {
            trajectories.append(t); // durable before the learner can see it (a failed attempt too: what happened, with its cause)
        } catch (RuntimeException e) {
            return finish("cannot write trajectories.jsonl: " + e.getMessage());
        }
        report.episodeTaken();
        if (t.error() != null) lastEpisodeError = t.error();
        if (accepted.infra() == null) {
            infra.answered();
        } else if (onInfraFailure(t, accepted) >= MAX_GROUPS_DROPPED_IN_A_ROW) {
            return finish(infra.droppedInARow() + " groups in a row were dropped as their episodes kept failing for their infrastructure,"
                    + " with no answer in between; the last failure (" + accepted.infra().label() + "): " + t.error());
        }
        String failed = trainIfReady();
        if (failed != null) return finish(failed);
        fill();
        return this;
    }

    /**
     * Runs a failed attempt again, or, its retries spent, cancels what its dropped group still has out;
     * returns the groups dropped in a row so far.
     */
    private int onInfraFailure(Trajectory t, GroupLedger.Accepted a) {
        InfraFailure cause = a.infra();
        if (a.again() != null) {
            getContext().getLog().info("episode {} failed for its infrastructure ({}): running it again as {}: {}", t.episodeId(),
                    cause.label(), a.again().episodeId(), t.error());
            infra.retried(cause);
            long now = System.currentTimeMillis();
            send(a.again(), now + settings.ackTimeout().toMillis());
        }
        if (a.dropped()) {
            getContext().getLog().warn("group {} dropped: episode {} failed for its infrastructure ({}) after {} retries: {}", t.groupId(),
                    t.episodeId(), cause.label(), settings.infraRetries(), t.error());
            infra.dropped(cause);
            for (String id : a.cancel()) {
                placements.forget(id);
                wiring.workers().tell(id, new WorkerProtocol.CancelEpisode(id, "its group was dropped: an episode of it kept failing"));
            }
        }
        return infra.droppedInARow();
    }

    private Behavior<Command> onTrained(Trained m) {
        LearnerProtocol.TrainReply reply = m.reply();
        TrainBatch batch = toLearner.answered(reply);
        if (batch == null) return this; // the answer to a batch sent again, answered already
        if (reply instanceof LearnerProtocol.Behind behind) return onBehind(batch, behind);
        BatchTrained r = (BatchTrained) reply;
        if (toLearner.trained(batch, r)) { // trained again for a learner that came back: its metrics were written the first time
            if (r.error() != null) return finish("the learner could not train batch " + batch.batchId() + " again: " + r.error());
            steps = Math.max(steps, r.step());
            version = Math.max(version, r.version());
            toLearner.sendNext();
            return this;
        }
        batchesWithoutUpdate = r.error() == null && r.published() ? 0 : batchesWithoutUpdate + 1;
        if (batchesWithoutUpdate >= MAX_BATCHES_WITHOUT_UPDATE) {
            // Nothing to learn from, batch after batch (every episode fails, say): stop instead of sampling forever.
            return finish(batchesWithoutUpdate + " batches in a row gave the learner nothing to train on"
                    + (r.error() != null ? " (" + r.error() + ")" : "")
                    + (lastEpisodeError != null ? "; the last failed episode said: " + lastEpisodeError : ""));
        }
        if (r.error() != null) {
            getContext().getLog().warn("the learner refused batch {}: {}", r.batchId(), r.error());
            metrics.append(report.refusedLine(steps, r.batchId(), r.error()));
        } else {
            version = r.version();
            if (r.published()) steps = r.step(); // the learner's count: a batch it could not train on is no update
            metrics.append(report.updateLine(steps, version, r.published(), ledger.inflight(), trajectories.syncMillis(), r.metrics()));
            if (r.published()) {
                report.updated(steps, r.metrics());
                onStep.accept(steps);
                if (steps >= settings.steps()) return finish(null);
            }
        }
        String failed = trainIfReady();
        if (failed != null) return finish(failed);
        fill();
        return this;
    }

    private Behavior<Command> onCheckOverdue() {
        long now = System.currentTimeMillis();
        for (GroupLedger.Launch l : ledger.overdue(now, settings.episodeTimeout().toMillis())) {
            getContext().getLog().info("episode {} not answered within {}: sending it again", l.episodeId(), settings.episodeTimeout());
            resend(l, now + settings.ackTimeout().toMillis());
        }
        resend(placements.overdue(now, settings.ackTimeout().toMillis(), getContext().getLog()));
        toLearner.resendIfOverdue(now, settings.ackTimeout().toMillis(), getContext().getLog());
        return this;
    }

    private Behavior<Command> onReceipt(Receipted r) {
        resend(placements.onReceipt(r.receipt(), System.currentTimeMillis(), settings.ackTimeout().toMillis(), getContext().getLog()));
        return this;
    }

    private Behavior<Command> onMemberChanged(MemberChanged m) {
        if (m.event() instanceof org.apache.pekko.cluster.ClusterEvent.MemberRemoved) {
            return onNodeRemoved(new NodeRemoved(m.event().member().address().toString()));
        }
        resend(placements.onMember(m.event(), System.currentTimeMillis(), getContext().getLog()));
        return this;
    }

    private Behavior<Command> onNodeRemoved(NodeRemoved m) {
        toLearner.nodeRemoved(m.node(), System.currentTimeMillis(), settings.ackTimeout().toMillis(), getContext().getLog());
        List<EpisodePlacements.Resend> lost = placements.removed(m.node(), System.currentTimeMillis(), getContext().getLog());
        for (int i = 0; i < lost.size(); i++) { // sent again under the same id: nothing of them was trained
            infra.retried(InfraFailure.NODE_LOST);
        }
        resend(lost);
        return this;
    }

    private void resend(List<EpisodePlacements.Resend> again) {
        for (EpisodePlacements.Resend r : again) resend(r.episodeId(), r.ackDueMillis());
    }

    private void resend(String episodeId, long ackDueMillis) {
        GroupLedger.Launch l = ledger.relaunch(episodeId, System.currentTimeMillis());
        if (l != null) resend(l, ackDueMillis);
    }

    private void resend(GroupLedger.Launch l, long ackDueMillis) {
        send(l, ackDueMillis);
        report.resent();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /**
     * The learner came back from a checkpoint at {@code behind.step()}: the batches trained after it
     * go again, in order, then {@code batch}. Nothing is lost but the time to train them again.
     */
    private Behavior<Command> onBehind(TrainBatch batch, LearnerProtocol.Behind behind) {
        int again = toLearner.behind(batch, behind, getContext().getLog());
        if (again < 0) {
            return finish("the learner came back at step " + behind.step() + " but the batches after it are no longer held"
                    + " (checkpoint more often: agentswarm.train.checkpoint-every)");
        }
        report.retrained(again);
        return this;
    }

    /**
     * Sends a batch to the learner, in parts that each fit a frame of the large-message lane the
     * learner's messages travel on (a batch of long episodes is megabytes).
     */
    private void tellLearner(TrainBatch batch) {
        for (TrainBatch part : batch.split(learnerPartBytes)) wiring.learner().tell(part);
    }

    /** Hands the next batch to the learner when one is ready and none is there; says why the run must end, if it must. */
    private String trainIfReady() {
        if (toLearner.busy()) return null;
        GroupLedger.Batch b = ledger.takeBatch(version);
        if (b == null) return null;
        report.batchTaken(b);
        // Group commit: one fsync covers every trajectory of the batch (and any before it), so what the
        // learner trains on is on the disk, not only in the page cache, before the learner sees it.
        try {
            trajectories.sync();
        } catch (RuntimeException e) {
            return "cannot sync trajectories.jsonl to the disk: " + e.getMessage();
        }
        toLearner.add(new TrainBatch(++batches, b.groups(), ledger.resumeCursor(), steps, wiring.runDir(), trained));
        return null;
    }

    /**
     * Sends what the in-flight bound allows; in sync mode only once the last update is done and the
     * round is back: the groups a batch still lacks (all of them, or those dynamic sampling dropped).
     */
    private void fill() {
        int groups;
        if (settings.sync()) {
            groups = !toLearner.training() && ledger.inflight() == 0 ? Math.max(0, settings.groupsPerStep() - ledger.readyGroups()) : 0;
        } else {
            groups = Integer.MAX_VALUE;
        }
        long now = System.currentTimeMillis();
        for (GroupLedger.Launch l : ledger.launch(groups, now)) send(l, now + settings.ackTimeout().toMillis());
    }

    private void send(GroupLedger.Launch l, long ackDueMillis) {
        long atLeast = Math.max(0, version - settings.maxStaleness());
        WorkerProtocol.RunEpisode run = new WorkerProtocol.RunEpisode(l.episodeId(), l.groupId(), l.task(), spec, atLeast, answers);
        if (placements.tracking()) {
            placements.sent(l.episodeId(), ackDueMillis);
            run = run.withReceipts(receipts);
        }
        wiring.workers().tell(l.episodeId(), run);
    }

    private Behavior<Command> finish(String error) {
        for (String id : ledger.inflightIds()) {
            wiring.workers().tell(id, new WorkerProtocol.CancelEpisode(id, "the training run ended"));
        }
        done.complete(report.summary(steps, version, ledger.resumeCursor(), error));
        return Behaviors.stopped();
    }
}
