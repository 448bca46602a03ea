package dev.agentswarm.policy.tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Learns byte-pair merges from a corpus. Text is cut into the same chunks the tokenizer uses and
 * each distinct chunk is counted once; then the most frequent adjacent pair is merged again and
 * again. Only the chunks that contain the merged pair are revisited after a merge, and candidates
 * wait in a max-heap that is corrected lazily, so a merge costs about the size of what it changes.
 * Ties go to the lowest left id, then the lowest right id: the same corpus gives the same merges.
 */
public final class BpeTrainer {

    /** A pair seen once compresses nothing; merging it would only spend a vocabulary slot. */
    private static final long MIN_PAIR_COUNT = 2;

    private final List<String> specials;
    private final int digitGroup;

    public BpeTrainer() {
        this(BpeTokenizer.DEFAULT_SPECIALS);
    }

    public BpeTrainer(List<String> specials) {
        this(specials, BpeTokenizer.DIGIT_GROUP);
    }

    /** @param digitGroup the most digits a learned token may join */
    public BpeTrainer(List<String> specials, int digitGroup) {
        if (digitGroup < 1) throw new IllegalArgumentException("digitGroup must be >= 1, got " + digitGroup);
        this.specials = List.copyOf(specials);
        this.digitGroup = digitGroup;
    }

    /**
     * @param vocabSize the target size including the 256 bytes and the specials; fewer merges are
     *     learned when the corpus runs out of pairs that occur at least twice
     */
    public BpeTokenizer train(Iterable<String> corpus, int vocabSize) {
        int base = BpeTokenizer.BYTE_TOKENS + specials.size();
        if (vocabSize < base) {
            throw new IllegalArgumentException("vocabulary size " + vocabSize + " is below the " + base
                    + " ids taken by the 256 bytes and " + specials.size() + " special tokens");
        }
        List<Merge> merges = learn(countChunks(corpus), base, vocabSize - base);
        return new BpeTokenizer(specials, merges, digitGroup);
    }

    private Map<String, long[]> countChunks(Iterable<String> corpus) {
        SpecialMatcher matcher = new SpecialMatcher(specials);
        Map<String, long[]> counts = new HashMap<>();
        for (String doc : corpus) {
            int from = 0;
            while (from < doc.length()) {
                int[] hit = matcher.find(doc, from);
                int end = hit == null ? doc.length() : hit[0];
                // Specials are single ids already; only the text between them teaches merges.
                PreTokenizer.split(doc.substring(from, end), digitGroup,
                        chunk -> counts.computeIfAbsent(chunk, k -> new long[1])[0]++);
                from = hit == null ? end : end + specials.get(hit[1]).length();
            }
        }
        return counts;
    }

    private static List<Merge> learn(Map<String, long[]> chunkCounts, int firstId, int maxMerges) {
        int n = chunkCounts.size();
        int[][] words = new int[n][];
        long[] freq = new long[n];
        int w = 0;
        for (var e : chunkCounts.entrySet()) {
            byte[] bytes = e.getKey().getBytes(StandardCharsets.UTF_8);
            int[] syms = new int[bytes.length];
            for (int i = 0; i < bytes.length; i++) {
                syms[i] = bytes[i] & 0xff;
            }
            words[w] = syms;
            freq[w] = e.getValue()[0];
            w++;
        }
        Map<Long, long[]> pairCounts = new HashMap<>();
        Map<Long, Set<Integer>> where = new HashMap<>();
        for (int i = 0; i < n; i++) {
            addPairs(words[i], freq[i], i, pairCounts, where, null);
        }
        // Max-heap of {count, pairKey}: highest count first, then the smallest key, that is the
        // lowest left id and then the lowest right id.
        PriorityQueue<long[]> heap = new PriorityQueue<>((x, y) ->
                x[0] != y[0] ? Long.compare(y[0], x[0]) : Long.compare(x[1], y[1]));
        pairCounts.forEach((key, c) -> heap.add(new long[] {c[0], key}));

        List<Merge> merges = new ArrayList<>();
        while (merges.size() < maxMerges && !heap.isEmpty()) {
            long[] top = heap.poll();
            long[] current = pairCounts.get(top[1]);
            long count = current == null ? 0 : current[0];
            if (count != top[0]) {
                // Stale: counts of old pairs only fall, so requeue at the true count and look again.
                if (count > 0) {
                    heap.add(new long[] {count, top[1]});
                }
                continue;
            }
            if (count < MIN_PAIR_COUNT) {
                break;
            }
            int left = (int) (top[1] >>> 32);
            int right = (int) top[1];
            int merged = firstId + merges.size();
            merges.add(new Merge(left, right));
            Set<Long> born = new HashSet<>();
            Set<Integer> affected = where.remove(top[1]);
            for (int i : affected) {
                int[] replaced = replace(words[i], left, right, merged);
                if (replaced == null) {
                    continue;
                }
                removePairs(words[i], freq[i], pairCounts);
                words[i] = replaced;
                addPairs(replaced, freq[i], i, pairCounts, where, born);
            }
            pairCounts.remove(top[1]);
            for (long key : born) {
                long[] c = pairCounts.get(key);
                if (c != null && c[0] > 0) {
                    heap.add(new long[] {c[0], key});
                }
            }
        }
        return merges;
    }

    /** The word with every non-overlapping (left, right), left to right, made {@code merged}; null if none. */
    private static int[] replace(int[] syms, int left, int right, int merged) {
        int[] out = null;
        int k = 0;
        for (int i = 0; i < syms.length; i++) {
            if (i + 1 < syms.length && syms[i] == left && syms[i + 1] == right) {
                if (out == null) {
                    out = new int[syms.length - 1];
                    System.arraycopy(syms, 0, out, 0, i);
                    k = i;
                }
                out[k++] = merged;
                i++;
            } else if (out != null) {
                out[k++] = syms[i];
            }
        }
        return out == null ? null : java.util.Arrays.copyOf(out, k);
    }

    private static void addPairs(int[] syms, long f, int word, Map<Long, long[]> pairCounts,
            Map<Long, Set<Integer>> where, Set<Long> born) {
        for (int i = 0; i + 1 < syms.length; i++) {
            long key = Merge.pairKey(syms[i], syms[i + 1]);
            pairCounts.computeIfAbsent(key, k -> new long[1])[0] += f;
            where.computeIfAbsent(key, k -> new HashSet<>()).add(word);
            if (born != null) {
                born.add(key);
            }
        }
    }

    private static void removePairs(int[] syms, long f, Map<Long, long[]> pairCounts) {
        for (int i = 0; i + 1 < syms.length; i++) {
            long key = Merge.pairKey(syms[i], syms[i + 1]);
            long[] c = pairCounts.get(key);
            c[0] -= f;
            if (c[0] <= 0) {
                pairCounts.remove(key);
            }
        }
    }
}
