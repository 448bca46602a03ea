package dev.agentswarm.orchestrator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.Behind;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class LearnerBatchQueueTest {

    private static final Logger LOG = LoggerFactory.getLogger(LearnerBatchQueueTest.class);

    private final List<Long> sent = new ArrayList<>();
    private final LearnerBatchQueue queue = new LearnerBatchQueue(b -> sent.add(b.batchId()));

    private static TrainBatch batch(long id, long step) {
        return new TrainBatch(id, List.of(), 0, step, null, null);
    }

    private static BatchTrained trained(TrainBatch b, long checkpointStep, String node) {
        return new BatchTrained(b.batchId(), b.step() + 1, b.step() + 1, true, Map.of(), null, checkpointStep, node);
    }

    /** The learner answers the batch at it and trains it; returns whether it was trained again. */
    private boolean train(TrainBatch b, long checkpointStep) {
        BatchTrained reply = trained(b, checkpointStep, "n1");
        assertSame(b, queue.answered(reply));
        boolean again = queue.trained(b, reply);
        queue.sendNext();
        return again;
    }

    @Test
    void oneBatchIsAtTheLearnerAtATimeInTheOrderTheyCame() {
        TrainBatch b1 = batch(1, 0);
        TrainBatch b2 = batch(2, 1);
        assertFalse(queue.busy());
        queue.add(b1);
        queue.add(b2);
        assertEquals(List.of(1L), sent);
        assertTrue(queue.training());
        assertNull(queue.answered(trained(b2, 0, "n1")), "b2 is not at the learner yet");
        assertFalse(train(b1, 0));
        assertEquals(List.of(1L, 2L), sent);
        assertNull(queue.answered(trained(b1, 0, "n1")), "an answer again to a batch answered already");
        assertFalse(train(b2, 0));
        assertFalse(queue.busy());
        assertFalse(queue.training());
    }

    @Test
    void aLearnerBackFromItsCheckpointTrainsWhatCameAfterItAgainThenTheBatchItWasGiven() {
        TrainBatch b1 = batch(1, 0);
        TrainBatch b2 = batch(2, 1);
        TrainBatch b3 = batch(3, 2);
        queue.add(b1);
        train(b1, 0);
        queue.add(b2);
        train(b2, 0);
        queue.add(b3);
        assertSame(b3, queue.answered(new Behind(3, 1, 1, "n2")));
        assertEquals(1, queue.behind(b3, new Behind(3, 1, 1, "n2"), LOG), "only b2 came after the checkpoint at step 1");
        assertEquals(List.of(1L, 2L, 3L, 2L), sent);
        assertTrue(train(b2, 1), "b2 was trained again: its metrics were written the first time");
        assertEquals(List.of(1L, 2L, 3L, 2L, 3L), sent);
        assertFalse(train(b3, 1));
    }

    @Test
    void aCheckpointCoversWhatCameBeforeIt() {
        TrainBatch b1 = batch(1, 0);
        TrainBatch b2 = batch(2, 1);
        queue.add(b1);
        train(b1, 1); // the learner's checkpoint is at step 1: b1 is no longer needed
        queue.add(b2);
        queue.answered(new Behind(2, 0, 0, "n2"));
        assertEquals(-1, queue.behind(b2, new Behind(2, 0, 0, "n2"), LOG), "a learner back at step 0 needs b1, which is gone");
    }

    @Test
    void theBatchGoesAgainWhenTheLearnersNodeLeavesUntilItIsAnswered() {
        TrainBatch b1 = batch(1, 0);
        TrainBatch b2 = batch(2, 1);
        queue.add(b1);
        train(b1, 0); // the learner is on n1
        queue.add(b2);
        queue.nodeRemoved("n2", 1_000, 500, LOG);
        queue.resendIfOverdue(10_000, 500, LOG);
        assertEquals(List.of(1L, 2L), sent, "another node left, and no resend was due");
        queue.nodeRemoved("n1", 1_000, 500, LOG);
        assertEquals(List.of(1L, 2L, 2L), sent);
        queue.resendIfOverdue(1_499, 500, LOG);
        assertEquals(3, sent.size());
        queue.resendIfOverdue(1_500, 500, LOG);
        assertEquals(List.of(1L, 2L, 2L, 2L), sent, "no answer within ack-timeout from the learner that took over");
        train(b2, 0);
        queue.resendIfOverdue(10_000, 500, LOG);
        assertEquals(4, sent.size(), "answered: nothing more goes");
    }

    @Test
    void onlySoManyTrainedBatchesAreKept() {
        for (int i = 0; i <= LearnerBatchQueue.MAX_RETAINED_BATCHES; i++) {
            TrainBatch b = batch(i + 1, i);
            queue.add(b);
            train(b, 0);
        }
        TrainBatch next = batch(LearnerBatchQueue.MAX_RETAINED_BATCHES + 2, LearnerBatchQueue.MAX_RETAINED_BATCHES + 1);
        queue.add(next);
        queue.answered(new Behind(next.batchId(), 0, 0, "n2"));
        assertEquals(-1, queue.behind(next, new Behind(next.batchId(), 0, 0, "n2"), LOG), "the oldest went");
        assertEquals(LearnerBatchQueue.MAX_RETAINED_BATCHES, queue.behind(next, new Behind(next.batchId(), 1, 1, "n2"), LOG),
                "the rest are kept");
    }
}
