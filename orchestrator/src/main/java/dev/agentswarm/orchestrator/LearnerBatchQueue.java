package dev.agentswarm.orchestrator;

import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * The batches of a training run on their way to the learner: one at the learner at a time, in step
 * order; those trained since the learner's latest checkpoint kept, so that a learner that comes back
 * from it trains them again; and the one at a learner whose node left sent again until it is answered.
 * The coordinator decides what an answer means for the run; this holds what was sent, so that the
 * replay and resend rules are one thing, tested without an actor system.
 */
final class LearnerBatchQueue {

    /** Trained batches kept for a learner that comes back from a checkpoint; past this many the oldest go (see checkpoint-every). */
    static final int MAX_RETAINED_BATCHES = 256;

    private final Consumer<TrainBatch> tellLearner;
    /** Batches to send the learner, one at a time: the next update, after any it must train again. */
    private final ArrayDeque<TrainBatch> toLearner = new ArrayDeque<>();
    /** The batch the learner is working on, or null. */
    private TrainBatch atLearner;
    /** Batches trained since the learner's latest checkpoint, in step order: a learner that comes back from it trains them again. */
    private final ArrayDeque<TrainBatch> retained = new ArrayDeque<>();
    /** Ids of batches sent again to a learner that came back: their metrics were written the first time. */
    private final Set<Long> replays = new HashSet<>();
    private String learnerNode;
    /**
     * While the learner's node is gone with a batch unanswered: when the batch goes again, or -1. A copy sent
     * the moment the node is removed may still reach the old singleton's address (the proxy on this node may
     * not have seen the removal yet) and be lost; it goes again every ack-timeout until the learner answers.
     */
    private long learnerResendAtMillis = -1;

    /** {@code tellLearner} sends one batch to the learner, however it must travel. */
    LearnerBatchQueue(Consumer<TrainBatch> tellLearner) {
        this.tellLearner = tellLearner;
    }

    /** Whether the learner has a batch. */
    boolean training() {
        return atLearner != null;
    }

    /** Whether a batch is at the learner or waiting for it: no new one is taken meanwhile. */
    boolean busy() {
        return atLearner != null || !toLearner.isEmpty();
    }

    /** Queues the next update's batch and sends it, unless the learner has one. */
    void add(TrainBatch batch) {
        toLearner.add(batch);
        sendNext();
    }

    /** Sends the next queued batch to the learner, unless one is there already. */
    void sendNext() {
        if (atLearner != null || toLearner.isEmpty()) return;
        atLearner = toLearner.poll();
        tellLearner.accept(atLearner);
    }

    /**
     * The batch {@code reply} answers, now off the learner; null when it answers a batch sent again and
     * answered already.
     */
    TrainBatch answered(LearnerProtocol.TrainReply reply) {
        if (atLearner == null || reply.batchId() != atLearner.batchId()) return null;
        learnerResendAtMillis = -1;
        TrainBatch batch = atLearner;
        atLearner = null;
        return batch;
    }

    /**
     * Keeps what the learner trained until its checkpoint covers it; says whether {@code batch} was one
     * trained again for a learner that came back, whose metrics were written the first time.
     */
    boolean trained(TrainBatch batch, BatchTrained r) {
        learnerNode = r.node();
        if (r.error() == null && r.published()) retained.add(batch);
        retained.removeIf(b -> b.step() < r.checkpointStep()); // covered by the learner's checkpoint
        while (retained.size() > MAX_RETAINED_BATCHES) retained.poll();
        return replays.remove(batch.batchId());
    }

    /**
     * The learner came back from a checkpoint at {@code behind.step()}: the batches trained after it
     * go again, in order, then {@code batch}. Returns how many go again, or -1 when the first of them is
     * no longer held.
     */
    int behind(TrainBatch batch, LearnerProtocol.Behind behind, Logger log) {
        learnerNode = behind.node();
        List<TrainBatch> again = retained.stream().filter(b -> b.step() >= behind.step()).toList();
        if (again.isEmpty() ? batch.step() != behind.step() : again.get(0).step() != behind.step()) return -1;
        log.warn("the learner came back at step {}: training {} batches again before batch {}", behind.step(),
                again.size(), batch.batchId());
        retained.removeIf(b -> b.step() >= behind.step());
        toLearner.addFirst(batch);
        for (int i = again.size() - 1; i >= 0; i--) {
            replays.add(again.get(i).batchId());
            toLearner.addFirst(again.get(i));
        }
        sendNext();
        return again.size();
    }

    /** A node left: if it may have been the learner's with a batch unanswered, the batch goes again. */
    void nodeRemoved(String node, long now, long ackTimeoutMillis, Logger log) {
        if (atLearner != null && (learnerNode == null || learnerNode.equals(node))) {
            // The learner's node is gone with the batch: the singleton starts on another learner node and gets it again.
            log.warn("node {} left while the learner had batch {}: sending it again", node, atLearner.batchId());
            tellLearner.accept(atLearner);
            learnerResendAtMillis = now + ackTimeoutMillis;
        }
    }

    /** Sends the batch again while the learner that took over has not answered it. */
    void resendIfOverdue(long now, long ackTimeoutMillis, Logger log) {
        if (atLearner != null && learnerResendAtMillis >= 0 && now >= learnerResendAtMillis) {
            // Safe to repeat: a learner answers a batch it trained already without training it again.
            log.warn("no answer yet for batch {} from the learner that took over: sending it again", atLearner.batchId());
            tellLearner.accept(atLearner);
            learnerResendAtMillis = now + ackTimeoutMillis;
        }
    }
}
