package dev.agentswarm.learner;

import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.Behind;
import dev.agentswarm.core.protocol.LearnerProtocol.Checkpoint;
import dev.agentswarm.core.protocol.LearnerProtocol.Checkpointed;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.learner.rl.GrpoTrainer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * Improves the policy: each {@link TrainBatch} of finished groups is one GRPO update, after which the
 * new weights are handed to the node's {@link WeightsSource}, which announces them and lets every
 * node's policy server pull them, and the requester is told the step, the version and the metrics.
 * A batch that cannot be trained on (malformed trajectories) is answered with the error and changes
 * nothing. Spawn it on its own dispatcher ({@code agentswarm.learner-dispatcher}, one thread): DJL
 * training blocks.
 *
 * <p>As the cluster's learner singleton it knows no run until a batch names one: it opens the run
 * from its folder (configuration and latest checkpoint) and trains it from there. When it came
 * back from a checkpoint behind the coordinator (its previous node died), a batch that expects a
 * later step is answered {@link Behind}, and the coordinator sends the missing batches again; a
 * batch it already trained is not trained twice.
 */
public final class Learner extends AbstractBehavior<LearnerProtocol.Command> {

    /** Where checkpoints go and how often (in updates); a null run folder or 0 writes none but the requested ones. */
    public record Checkpointing(Path runDir, int every) {}

    /** A run's trainer and checkpointing, made from its folder; {@code resources} (its models) close with it. */
    public record OpenRun(GrpoTrainer trainer, Checkpointing checkpointing, AutoCloseable resources) {}

    /** Opens a run from its folder, on the learner's own thread; a null folder is the learner's own default run. */
    @FunctionalInterface
    public interface RunOpener {
        OpenRun open(Path runDir) throws Exception;
    }

    private final RunOpener opener;
    private final ActorRef<WeightsProtocol.SourceCommand> weights;
    private final String node;
    private final LearnerMeters meters;
    private OpenRun run;
    private String runDir;
    private long checkpointStep;

    /**
     * A learner of one run, whose trainer is made on the learner's own thread, at start.
     *
     * @param weights the {@link WeightsSource} on this node, which each update's weights are handed to
     */
    public static Behavior<LearnerProtocol.Command> create(Supplier<GrpoTrainer> trainer, ActorRef<WeightsProtocol.SourceCommand> weights,
                                                           Checkpointing checkpointing) {
        return Behaviors.setup(ctx -> {
            Learner l = new Learner(ctx, dir -> new OpenRun(trainer.get(), checkpointing, null), weights, "local");
            l.runFor(null);
            return l;
        });
    }

    /**
     * The cluster's learner: opens each run a batch names with {@code opener}.
     *
     * @param node this node's address, told to the coordinator so it notices when the learner's node leaves
     */
    public static Behavior<LearnerProtocol.Command> create(RunOpener opener, ActorRef<WeightsProtocol.SourceCommand> weights, String node) {
        return Behaviors.setup(ctx -> new Learner(ctx, opener, weights, node));
    }

    private Learner(ActorContext<LearnerProtocol.Command> context, RunOpener opener, ActorRef<WeightsProtocol.SourceCommand> weights,
                    String node) {
        super(context);
        this.opener = opener;
        this.weights = weights;
        this.node = node;
        this.meters = LearnerMeters.of(context.getSystem());
    }

    @Override
    public Receive<LearnerProtocol.Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(TrainBatch.class, this::onTrainPart)
                .onMessage(Checkpoint.class, this::onCheckpoint)
                .onSignal(PostStop.class, s -> {
                    closeRun();
                    return this;
                })
                .build();
    }

    /** The open run for {@code dir} (null: whatever run is open), opening it first when another or none is. */
    private OpenRun runFor(String dir) throws Exception {
        if (run != null && (dir == null || Objects.equals(dir, runDir))) return run;
        closeRun();
        run = opener.open(dir == null ? null : Path.of(dir));
        runDir = dir;
        checkpointStep = run.trainer().steps(); // a run opens at its latest checkpoint, or at step 0
        getContext().getLog().info("learner opened run {} at step {} (version {})", dir, run.trainer().steps(), run.trainer().version());
        return run;
    }

    private void closeRun() {
        if (run == null) return;
        run.trainer().close();
        if (run.resources() != null) {
            try {
                run.resources().close();
            } catch (Exception e) {
                getContext().getLog().warn("closing run {} failed", runDir, e);
            }
        }
        run = null;
        runDir = null;
    }

    /** Parts of batches that came in several messages, by batch id, until every part is here. */
    private final Map<Long, TrainBatch[]> partial = new java.util.LinkedHashMap<>();

    /** Batches whose parts went astray are dropped past this many: the coordinator sends a batch again whole. */
    private static final int MAX_PARTIAL_BATCHES = 8;

    private Behavior<LearnerProtocol.Command> onTrainPart(TrainBatch part) {
        if (part.parts() <= 1) return onTrain(part);
        TrainBatch[] got = partial.computeIfAbsent(part.batchId(), id -> new TrainBatch[part.parts()]);
        if (got.length != part.parts() || part.part() < 0 || part.part() >= got.length) {
            getContext().getLog().warn("batch {}: part {} of {} does not match the {} parts seen", part.batchId(), part.part(), part.parts(),
                    got.length);
            return this;
        }
        got[part.part()] = part;
        while (partial.size() > MAX_PARTIAL_BATCHES) partial.remove(partial.keySet().iterator().next());
        for (TrainBatch p : got) if (p == null) return this;
        partial.remove(part.batchId());
        java.util.List<java.util.List<dev.agentswarm.core.protocol.Trajectory>> groups = new java.util.ArrayList<>();
        for (TrainBatch p : got) groups.addAll(p.groups());
        TrainBatch first = got[0];
        return onTrain(new TrainBatch(first.batchId(), groups, first.dataCursor(), first.step(), first.runDir(), first.replyTo()));
    }

    private Behavior<LearnerProtocol.Command> onTrain(TrainBatch t) {
        OpenRun r;
        try {
            r = runFor(t.runDir());
        } catch (Exception e) { // the run's folder cannot be read: the coordinator hears why and may end the run
            getContext().getLog().error("cannot open run {}", t.runDir(), e);
            t.replyTo().tell(new BatchTrained(t.batchId(), 0, 0, false, Map.of(), "the learner cannot open run " + t.runDir() + ": "
                    + e.getMessage(), 0, node));
            return this;
        }
        GrpoTrainer trainer = r.trainer();
        if (t.step() != LearnerProtocol.ANY_STEP && t.step() > trainer.steps()) {
            getContext().getLog().info("batch {} starts at step {}, the learner is at {}: asking for the batches between", t.batchId(), t.step(),
                    trainer.steps());
            t.replyTo().tell(new Behind(t.batchId(), trainer.steps(), trainer.version(), node));
            return this;
        }
        if (t.step() != LearnerProtocol.ANY_STEP && t.step() < trainer.steps()) {
            // Sent again after its answer was lost: it is trained already, and is not trained twice.
            t.replyTo().tell(new BatchTrained(t.batchId(), trainer.steps(), trainer.version(), true, Map.of(), null, checkpointStep, node));
            return this;
        }
        GrpoTrainer.Result res;
        long started = System.nanoTime();
        try {
            res = trainer.train(t.groups());
            // A batch whose every group had one reward for all (nothing to learn from) is answered without an update.
            if (res.weights() != null) meters.step(System.nanoTime() - started, res.metrics());
        } catch (RuntimeException e) { // a malformed batch, or the engine failing on it: the sender hears why, the policy is unchanged
            getContext().getLog().warn("refused a training batch: {}", e.toString());
            t.replyTo().tell(new BatchTrained(t.batchId(), trainer.steps(), trainer.version(), false, Map.of(), e.getMessage(),
                    checkpointStep, node));
            return this;
        }
        if (res.weights() != null) {
            weights.tell(new WeightsSource.Publish(res.version(), res.weights(), null));
            // A failed periodic checkpoint is logged, not fatal: the update stands and the next checkpoint tries again.
            Checkpointing c = r.checkpointing();
            if (c.runDir() != null && c.every() > 0 && res.step() % c.every() == 0) write(r, t.dataCursor());
        }
        t.replyTo().tell(new BatchTrained(t.batchId(), res.step(), res.version(), res.weights() != null, res.metrics(), null,
                checkpointStep, node));
        return this;
    }

    private Behavior<LearnerProtocol.Command> onCheckpoint(Checkpoint c) {
        OpenRun r;
        try {
            r = runFor(c.runDir());
        } catch (Exception e) {
            c.replyTo().tell(new Checkpointed(0, null, "the learner cannot open run " + c.runDir() + ": " + e.getMessage()));
            return this;
        }
        c.replyTo().tell(r.checkpointing().runDir() == null ? new Checkpointed(r.trainer().steps(), null, null) : write(r, c.dataCursor()));
        return this;
    }

    private Checkpointed write(OpenRun r, long dataCursor) {
        GrpoTrainer trainer = r.trainer();
        try {
            Path p = trainer.checkpoint(r.checkpointing().runDir(), dataCursor);
            checkpointStep = trainer.steps();
            return new Checkpointed(trainer.steps(), p.toString(), null);
        } catch (java.io.IOException | RuntimeException e) {
            getContext().getLog().error("checkpoint of step {} failed", trainer.steps(), e);
            return new Checkpointed(trainer.steps(), null, "checkpoint of step " + trainer.steps() + " failed: " + e.getMessage());
        }
    }
}
