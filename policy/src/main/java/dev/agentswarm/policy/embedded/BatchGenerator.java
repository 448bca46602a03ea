package dev.agentswarm.policy.embedded;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.ParameterStore;
import dev.agentswarm.core.CborSerializable;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.KvCache;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.model.HybridDecoder;
import dev.agentswarm.policy.sampling.StopSequences;
import dev.agentswarm.policy.sampling.TokenSampler;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Continuous batching over one model: sequences join the running batch between decode steps (new
 * ones are prefilled together), each decodes at its own position, and a finished one leaves at once
 * so its slot takes the next waiting request. Running sequences always occupy KV-cache slots
 * 0 .. n-1 (a leaver's slot is refilled by moving the last one), so a step reads contiguous views.
 *
 * <p>Not thread-safe: one thread (the policy server's) calls everything. Weights may be replaced
 * between steps with {@link #loadWeights}; each result reports the versions it was produced with.
 */
public final class BatchGenerator implements AutoCloseable {

    /** Thrown by {@link #submit} when the waiting queue is full: the caller should back off. */
    public static final class QueueFullException extends RuntimeException {
        QueueFullException(String message) {
            super(message);
        }
    }

    /** Tokens a running sequence produced since it was last asked about ({@link #newTokens}). */
    public record Progress(long id, int[] tokens, float[] logprobs, TopLogprobs top) {}

    /** Counters since creation. */
    public record Stats(long steps, long prefills, long generatedTokens, long prefillTokens, int running, int queued,
                        long version) implements CborSerializable {}

    private final CausalLm model;
    private final NDManager manager;
    private final ParameterStore ps;
    private final KvCache cache;
    /** Null when steps decode with engine ops (the setting, or a model off the CPU). */
    private final HybridDecoder hybrid;
    private final GeneratorSettings settings;
    private final IntFunction<byte[]> tokenBytes;
    private final int usableVocab;
    private final SplittableRandom seeds;
    private final ArrayDeque<Waiting> queue = new ArrayDeque<>();
    private final Sequence[] slots;
    private int running;
    private long version;
    private long steps;
    private long prefills;
    private long generatedTokens;
    private long prefillTokens;
    private int lastDecodeBatch;

    /**
     * @param tokenBytes the UTF-8 bytes a token id stands for, to match stop strings and build the text
     * @param usableVocab ids 0 .. usableVocab-1 may be sampled: a model may have more rows than its
     *     tokenizer has ids (e.g. a byte-level tokenizer on a 512-row model), and those are never produced
     */
    public BatchGenerator(CausalLm model, NDManager manager, GeneratorSettings settings, IntFunction<byte[]> tokenBytes,
                          int usableVocab, long version) {
        if (usableVocab < 1 || usableVocab > model.config().vocab()) {
            throw new IllegalArgumentException("usable vocabulary " + usableVocab + " outside 1.." + model.config().vocab());
        }
        this.usableVocab = usableVocab;
        this.model = model;
        this.manager = manager;
        this.settings = settings;
        this.tokenBytes = tokenBytes;
        this.version = version;
        this.ps = new ParameterStore(manager, false);
        this.cache = new KvCache(manager, model.config(), settings.slots(), model.config().context());
        // The hybrid decoder reads weights and cache through host memory: CPU only.
        this.hybrid = settings.decoder() == GeneratorSettings.Decoder.HYBRID && !manager.getDevice().isGpu()
                ? new HybridDecoder(model, cache, manager, settings.slots(), settings.javaAttentionRows())
                : null;
        this.slots = new Sequence[settings.slots()];
        this.seeds = new SplittableRandom(settings.seed());
    }

    /** Queues a request; it joins the batch at the next step with a free slot. */
    public void submit(GenerationRequest request) {
        int context = model.config().context();
        if (request.prompt().length >= context) {
            throw new IllegalArgumentException("prompt of " + request.prompt().length + " tokens leaves no room to generate"
                    + " in the model's context of " + context + " tokens");
        }
        for (int id : request.prompt()) {
            if (id < 0 || id >= model.config().vocab()) {
                throw new IllegalArgumentException("prompt token id " + id + " outside the vocabulary 0.."
                        + (model.config().vocab() - 1));
            }
        }
        if (queue.size() >= settings.maxQueued() + free()) {
            throw new QueueFullException("policy server queue full: " + queue.size() + " requests waiting and "
                    + running + " generating (max-queued = " + settings.maxQueued() + ", max-batch = "
                    + settings.slots() + ")");
        }
        queue.add(new Waiting(request, System.nanoTime()));
    }

    /**
     * For each running sequence whose id {@code wanted} accepts, the tokens it produced since the last
     * call (none for those that produced nothing new). A sequence that finished is not running: its
     * last tokens come with its {@link Generation}, which always holds them all.
     */
    public List<Progress> newTokens(java.util.function.LongPredicate wanted) {
        List<Progress> out = new ArrayList<>();
        for (int s = 0; s < running; s++) {
            Sequence seq = slots[s];
            if (seq.count > seq.reported && wanted.test(seq.request.id())) {
                out.add(new Progress(seq.request.id(), Arrays.copyOfRange(seq.tokens, seq.reported, seq.count),
                        Arrays.copyOfRange(seq.logprobs, seq.reported, seq.count), seq.top(seq.reported, seq.count)));
                seq.reported = seq.count;
            }
        }
        return out;
    }

    /** Forgets a request, waiting or running; returns whether it was found. */
    public boolean cancel(long id) {
        for (Iterator<Waiting> it = queue.iterator(); it.hasNext(); ) {
            if (it.next().request.id() == id) {
                it.remove();
                return true;
            }
        }
        for (int s = 0; s < running; s++) {
            if (slots[s].request.id() == id) {
                release(List.of(slots[s]));
                return true;
            }
        }
        return false;
    }

    /**
     * Drops every waiting and running request (after a failed step the cache may hold half-written
     * state) and returns their ids, so the caller can answer each one.
     */
    public List<Long> abortAll() {
        List<Long> ids = new ArrayList<>();
        for (Waiting w : queue) ids.add(w.request.id());
        queue.clear();
        for (int s = 0; s < running; s++) {
            ids.add(slots[s].request.id());
            slots[s] = null;
        }
        running = 0;
        return ids;
    }

    public boolean hasWork() {
        return running > 0 || !queue.isEmpty();
    }

    public long version() {
        return version;
    }

    /** Requests waiting for a slot now. */
    public int queued() {
        return queue.size();
    }

    /** Sequences decoded together by the last {@link #step} (0 when it only prefilled or had nothing to do). */
    public int lastDecodeBatch() {
        return lastDecodeBatch;
    }

    /** Tokens generated since creation. */
    public long generatedTokens() {
        return generatedTokens;
    }

    public Stats stats() {
        return new Stats(steps, prefills, generatedTokens, prefillTokens, running, queue.size(), version);
    }

    public long cacheBytes() {
        return cache.bytes();
    }

    /** Copies new weights into the live model (between steps) and adopts their version. */
    public long loadWeights(byte[] safetensors) {
        version = ModelWeights.load(model, safetensors);
        return version;
    }

    /**
     * Admits waiting requests into free slots (one batched prefill), then runs one decode step for
     * every running sequence. Returns the sequences that finished during this step.
     */
    public List<Generation> step() {
        InferenceThreads.noGradHere();
        lastDecodeBatch = 0;
        List<Generation> done = new ArrayList<>();
        try (NDManager step = manager.newSubManager()) {
            admit(step, done);
        }
        if (running > 0) {
            try (NDManager step = manager.newSubManager()) {
                decode(step, done);
            }
        }
        steps++;
        return done;
    }

    private void admit(NDManager step, List<Generation> done) {
        List<Sequence> joining = new ArrayList<>();
        int longest = 0;
        while (!queue.isEmpty() && running + joining.size() < slots.length) {
            int length = queue.peek().request.prompt().length;
            int padded = Math.max(longest, length) * (joining.size() + 1);
            if (!joining.isEmpty() && padded > settings.maxPrefillTokens()) break;
            Waiting w = queue.poll();
            longest = Math.max(longest, length);
            joining.add(new Sequence(w, running + joining.size(), version, rngFor(w.request)));
        }
        if (joining.isEmpty()) return;
        int m = joining.size();
        long[] ids = new long[m * longest];
        int[] lengths = new int[m];
        for (int r = 0; r < m; r++) {
            int[] prompt = joining.get(r).request.prompt();
            for (int t = 0; t < prompt.length; t++) ids[r * longest + t] = prompt[t];
            lengths[r] = prompt.length;
            prefillTokens += prompt.length;
        }
        NDArray logits = model.prefill(ps, step.create(ids, new Shape(m, longest)), lengths, cache, running);
        float[][] rows = rows(logits);
        for (Sequence s : joining) {
            slots[s.slot] = s;
            s.position = s.request.prompt().length;
        }
        running += m;
        prefills++;
        List<Sequence> finished = new ArrayList<>();
        for (int r = 0; r < m; r++) {
            if (joining.get(r).accept(rows[r])) finished.add(joining.get(r));
        }
        release(finished, done);
    }

    private void decode(NDManager step, List<Generation> done) {
        int n = running;
        lastDecodeBatch = n;
        int[] tokens = new int[n];
        int[] positions = new int[n];
        for (int s = 0; s < n; s++) {
            tokens[s] = slots[s].pending;
            positions[s] = slots[s].position;
        }
        // A model with a live LoRA adapter decodes in the engine, which applies it; the hybrid path reads base weights.
        float[][] rows = hybrid != null && !model.adapterActive()
                ? rows(hybrid.step(tokens, positions), n)
                : rows(model.decode(ps, step, tokens, positions, cache));
        List<Sequence> finished = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            Sequence seq = slots[s];
            seq.position++;
            seq.lastVersion = version;
            if (seq.accept(rows[s])) finished.add(seq);
        }
        release(finished, done);
    }

    private void release(List<Sequence> finished, List<Generation> done) {
        for (Sequence s : finished) done.add(s.result());
        release(finished);
    }

    /** Frees the slots of {@code leaving}, highest first, moving the last running sequence into each hole. */
    private void release(List<Sequence> leaving) {
        List<Sequence> order = new ArrayList<>(leaving);
        order.sort(Comparator.comparingInt((Sequence s) -> s.slot).reversed());
        for (Sequence s : order) {
            int last = running - 1;
            if (s.slot != last) {
                cache.moveSlot(last, s.slot);
                slots[s.slot] = slots[last];
                slots[s.slot].slot = s.slot;
            }
            slots[last] = null;
            running--;
        }
    }

    private int free() {
        return slots.length - running;
    }

    private SplittableRandom rngFor(GenerationRequest r) {
        Long seed = r.sampling().seed();
        return seed != null ? new SplittableRandom(seed) : seeds.split();
    }

    /** Each row's logits over the usable ids only: the sampler never sees the others. */
    private float[][] rows(NDArray logits) {
        return rows(logits.toFloatArray(), (int) logits.getShape().get(0));
    }

    private float[][] rows(float[] flat, int n) {
        int v = flat.length / n;
        float[][] out = new float[n][];
        for (int i = 0; i < n; i++) out[i] = Arrays.copyOfRange(flat, i * v, i * v + usableVocab);
        return out;
    }

    @Override
    public void close() {
        if (hybrid != null) hybrid.close();
        cache.close();
    }

    private record Waiting(GenerationRequest request, long since) {}

    /** One running sequence: where it is in the cache, what it has produced, how it samples and stops. */
    private final class Sequence {
        final GenerationRequest request;
        final long queuedNanos;
        final long startedAt = System.nanoTime();
        final long firstVersion;
        long lastVersion;
        final TokenSampler sampler;
        final SplittableRandom rng;
        final StopSequences stops;
        final int maxTokens;
        final ByteArrayOutputStream text = new ByteArrayOutputStream();
        int[] tokens = new int[16];
        float[] logprobs = new float[16];
        /** Each position's most likely tokens, when the request asks for them (else null). */
        int[][] topIds;
        float[][] topLogprobs;
        int count;
        /** Tokens already handed out by {@link #newTokens}. */
        int reported;
        int slot;
        int position;
        int pending;
        int textEnd = -1;
        int decodedChars;
        FinishReason finish;

        Sequence(Waiting w, int slot, long version, SplittableRandom rng) {
            this.request = w.request;
            this.queuedNanos = startedAt - w.since;
            this.slot = slot;
            this.firstVersion = version;
            this.lastVersion = version;
            this.sampler = new TokenSampler(request.sampling());
            this.rng = rng;
            this.stops = new StopSequences(request.sampling().stop());
            this.maxTokens = request.sampling().maxTokens();
            if (request.topLogprobs() > 0) {
                topIds = new int[16][];
                topLogprobs = new float[16][];
            }
        }

        /** Positions {@code from} .. {@code to} - 1 of the top log-probs, or null when not asked for. */
        TopLogprobs top(int from, int to) {
            return topIds == null ? null : new TopLogprobs(Arrays.copyOfRange(topIds, from, to), Arrays.copyOfRange(topLogprobs, from, to));
        }

        /** Samples the next token from {@code logits}; true when the sequence has finished. */
        boolean accept(float[] logits) {
            TokenSampler.Choice c = sampler.sample(logits, rng);
            if (count == tokens.length) {
                tokens = Arrays.copyOf(tokens, count * 2);
                logprobs = Arrays.copyOf(logprobs, count * 2);
                if (topIds != null) {
                    topIds = Arrays.copyOf(topIds, count * 2);
                    topLogprobs = Arrays.copyOf(topLogprobs, count * 2);
                }
            }
            tokens[count] = c.tokenId();
            logprobs[count] = c.logprob();
            if (topIds != null) {
                int k = request.topLogprobs();
                int[] ids = new int[k];
                float[] lps = new float[k];
                int found = sampler.top(k, ids, lps);
                topIds[count] = Arrays.copyOf(ids, found);
                topLogprobs[count] = Arrays.copyOf(lps, found);
            }
            count++;
            generatedTokens++;
            pending = c.tokenId();
            for (int stop : request.stopTokenIds()) {
                if (c.tokenId() == stop) {
                    finish = FinishReason.STOP;
                    return true;
                }
            }
            text.writeBytes(tokenBytes.apply(c.tokenId()));
            if (!stops.isEmpty()) {
                String sofar = text.toString(StandardCharsets.UTF_8);
                // A token may end inside a multi-byte character: look back from the last complete one.
                int at = stops.find(sofar, Math.max(0, decodedChars - 1));
                decodedChars = sofar.length();
                if (at >= 0) {
                    textEnd = at;
                    finish = FinishReason.STOP;
                    return true;
                }
            }
            // Prompt plus generated tokens never exceed the context (position + 1 of them now).
            if (count >= maxTokens || position + 1 >= cache.length()) {
                finish = FinishReason.LENGTH;
                return true;
            }
            return false;
        }

        Generation result() {
            String decoded = text.toString(StandardCharsets.UTF_8);
            if (textEnd >= 0) decoded = decoded.substring(0, textEnd);
            return new Generation(request.id(), Arrays.copyOf(tokens, count), Arrays.copyOf(logprobs, count), decoded,
                    finish, firstVersion, lastVersion, request.prompt().length, queuedNanos,
                    System.nanoTime() - startedAt, top(0, count));
        }
    }
}
