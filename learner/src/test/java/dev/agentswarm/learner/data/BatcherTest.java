package dev.agentswarm.learner.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatcherTest {

    private static List<Example> examples(int n) {
        List<Example> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int len = 3 + i % 4;
            int[] ids = new int[len];
            int[] mask = new int[len];
            Arrays.fill(ids, 100 + i);
            mask[len - 1] = 1;
            mask[len - 2] = 1;
            out.add(new Example(ids, mask, "f:" + i));
        }
        return out;
    }

    @Test
    void padsRightAndShiftsTheMaskOntoTargets() {
        int[] ids = {1, 2, 3, 4};
        int[] mask = {0, 0, 1, 1};
        MicroBatch b = MicroBatch.of(List.of(new Example(ids, mask, "a"), new Example(new int[] {7, 8}, new int[] {0, 1}, "b")), 0);
        assertEquals(4, b.length());
        assertArrayEquals(new long[] {1, 2, 3, 4, 7, 8, 0, 0}, b.ids());
        // target t is token t+1: row a trains tokens 3 and 4 (targets 1, 2), row b token 8 (target 0).
        assertArrayEquals(new float[] {0, 1, 1, 1, 0, 0}, b.targetMask());
        assertEquals(3, b.trainedTokens());
    }

    @Test
    void theOrderDependsOnlyOnSeedAndEpochAndACursorResumesIt() {
        Batcher a = new Batcher(examples(10), 3, 42, 0);
        List<MicroBatch> straight = new ArrayList<>();
        DataCursor c = DataCursor.START;
        DataCursor saved = null;
        for (int i = 0; i < 8; i++) { // 24 rows: crosses two epoch ends
            Batcher.Next n = a.next(c);
            straight.add(n.batch());
            c = n.cursor();
            if (i == 3) saved = c;
        }
        assertEquals(new DataCursor(2, 4), c);
        Batcher b = new Batcher(examples(10), 3, 42, 0); // a fresh one, as after a restart
        DataCursor r = saved;
        for (int i = 4; i < 8; i++) {
            Batcher.Next n = b.next(r);
            assertArrayEquals(straight.get(i).ids(), n.batch().ids(), "batch " + i);
            r = n.cursor();
        }
        assertFalse(Arrays.equals(a.order(0), a.order(1)), "each epoch reshuffles");
        assertFalse(Arrays.equals(a.order(0), new Batcher(examples(10), 3, 43, 0).order(0)), "the seed matters");
        int[] sorted = a.order(1).clone();
        Arrays.sort(sorted);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, sorted, "a permutation");
    }

    @Test
    void evaluationBatchesKeepFileOrder() {
        List<MicroBatch> batches = Batcher.inOrder(examples(5), 2, 0);
        assertEquals(3, batches.size());
        assertEquals(1, batches.get(2).rows());
        assertEquals(100, batches.get(0).ids()[0]);
    }
}
