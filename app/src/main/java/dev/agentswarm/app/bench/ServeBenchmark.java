package dev.agentswarm.app.bench;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.typesafe.config.Config;
import dev.agentswarm.app.serve.ApiKeys;
import dev.agentswarm.app.serve.ServeAccess;
import dev.agentswarm.app.serve.ServingNode;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * {@code swarm bench serve}: chat completions through {@code swarm serve}'s HTTP layer, sent by
 * clients of the official OpenAI Java SDK, beside the same requests sent to the node's policy server
 * directly (rendered with the chat template and asked of the server, as an episode does), in one
 * sitting on one node. Request i of a round samples with seed i in both, so both generate the same
 * tokens; the ratio of the two is what the HTTP layer (JSON, Pekko HTTP, the SDK and its okhttp
 * client, a relay actor) costs.
 */
public final class ServeBenchmark {

    private static final String QUESTION = "Write one sentence about the sea.";

    /**
     * {@code clients} concurrent clients each; {@code requests} completions per round; {@code warmup} of each
     * kind first; {@code withKey}: the server requires an API key, which every client sends (the key check's cost).
     */
    public record Settings(List<Integer> clients, int requests, int maxTokens, int warmup, int reps, boolean withKey) {
        public Settings {
            if (clients.isEmpty() || clients.stream().anyMatch(c -> c < 1)) {
                throw new IllegalArgumentException("--clients must be positive counts, e.g. 1,16,64");
            }
            if (requests < 1) throw new IllegalArgumentException("--requests must be >= 1, got " + requests);
            if (maxTokens < 1) throw new IllegalArgumentException("--max-tokens must be >= 1, got " + maxTokens);
            if (warmup < 0) throw new IllegalArgumentException("--warmup must be >= 0, got " + warmup);
            if (reps < 1) throw new IllegalArgumentException("--reps must be >= 1, got " + reps);
        }
    }

    /** One round: completions per second, latency percentiles, tokens generated. */
    public record Round(String via, int clients, int requests, double seconds, double perSecond, double p50Ms, double p99Ms,
                        long tokens, double cpuMsPerCompletion) {}

    private ServeBenchmark() {}

    public static Map<String, Object> run(Config config, String modelId, Settings s, Consumer<String> log) throws Exception {
        List<Round> rounds = new ArrayList<>();
        // A fresh random key per run: the bench measures the check, not a secret.
        String key = s.withKey() ? HexFormat.of().formatHex(randomBytes()) : "none";
        ServeAccess access = s.withKey() ? new ServeAccess(ApiKeys.of(List.of(key)), false, false) : ServeAccess.loopbackOnly();
        try (ServingNode serving = ServingNode.start(config, modelId, false, Path.of("runs"), "127.0.0.1", 0, access,
                java.util.function.UnaryOperator.identity())) {
            log.accept("serving " + modelId + " at " + serving.baseUrl());
            int most = s.clients().stream().mapToInt(Integer::intValue).max().orElse(1);
            List<OpenAIClient> sdk = new ArrayList<>();
            for (int i = 0; i < most; i++) {
                sdk.add(OpenAIOkHttpClient.builder().baseUrl(serving.baseUrl()).apiKey(key).maxRetries(0).build());
            }
            ExecutorService threads = Executors.newFixedThreadPool(most);
            try {
                for (int c : s.clients()) {
                    // Direct and HTTP rounds alternate, each with the same seeds (the same tokens); the median of each kind counts.
                    List<Round> direct = new ArrayList<>();
                    List<Round> http = new ArrayList<>();
                    // Warm-up at this concurrency: batch 1 and 2 decode on a path of their own (Java attention) that the JIT compiles first.
                    if (s.warmup() > 0) {
                        log.accept("  warming up with " + c + " clients");
                        round("direct", c, s.warmup(), s.maxTokens(), threads, i -> direct(serving, i, s.maxTokens()));
                        round("http", c, s.warmup(), s.maxTokens(), threads, i -> http(sdk.get(i % c), modelId, i, s.maxTokens()));
                    }
                    for (int rep = 0; rep < s.reps(); rep++) {
                        direct.add(round("direct", c, s.requests(), s.maxTokens(), threads, i -> direct(serving, i, s.maxTokens())));
                        log.accept(describe(direct.get(rep)));
                        http.add(round("http", c, s.requests(), s.maxTokens(), threads,
                                i -> http(sdk.get(i % c), modelId, i, s.maxTokens())));
                        log.accept(describe(http.get(rep)));
                    }
                    rounds.add(median(direct));
                    rounds.add(median(http));
                }
            } finally {
                threads.shutdownNow();
                threads.awaitTermination(30, TimeUnit.SECONDS);
                sdk.forEach(OpenAIClient::close);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("model", modelId);
        out.put("requests", s.requests());
        out.put("max_tokens", s.maxTokens());
        out.put("reps", s.reps());
        out.put("api_key", s.withKey());
        List<Map<String, Object>> byClients = new ArrayList<>();
        for (int k = 0; k < rounds.size(); k += 2) {
            Round d = rounds.get(k);
            Round h = rounds.get(k + 1);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("clients", d.clients());
            m.put("direct_per_s", round(d.perSecond()));
            m.put("http_per_s", round(h.perSecond()));
            m.put("direct_p50_ms", round(d.p50Ms()));
            m.put("http_p50_ms", round(h.p50Ms()));
            m.put("direct_p99_ms", round(d.p99Ms()));
            m.put("http_p99_ms", round(h.p99Ms()));
            m.put("direct_cpu_ms", round(d.cpuMsPerCompletion()));
            m.put("http_cpu_ms", round(h.cpuMsPerCompletion()));
            m.put("tokens", h.tokens());
            m.put("same_tokens", d.tokens() == h.tokens());
            // The HTTP layer's cost: how much longer the same work takes through it.
            m.put("throughput_ratio", round(d.perSecond() / h.perSecond()));
            m.put("p50_ratio", round(h.p50Ms() / d.p50Ms()));
            m.put("cpu_ratio", round(h.cpuMsPerCompletion() / d.cpuMsPerCompletion()));
            byClients.add(m);
        }
        out.put("rounds", byClients);
        return out;
    }

    private interface Call {
        long tokens(int i) throws Exception;
    }

    private static long direct(ServingNode serving, int i, int maxTokens) throws Exception {
        Completion c = serving.policy().complete(new CompletionRequest("bench-" + i + "-" + System.nanoTime(), 1,
                List.of(Message.user(QUESTION)), List.of(), "auto", sampling(i, maxTokens))).toCompletableFuture().get(10, TimeUnit.MINUTES);
        return c.tokenIds().length;
    }

    private static long http(OpenAIClient client, String model, int i, int maxTokens) {
        ChatCompletion c = client.chat().completions().create(ChatCompletionCreateParams.builder().model(model)
                .addUserMessage(QUESTION).maxCompletionTokens(maxTokens).temperature(1.0).seed((long) i).build());
        return c.usage().orElseThrow().completionTokens();
    }

    private static SamplingParams sampling(int i, int maxTokens) {
        return new SamplingParams(1.0, 1.0, 0, maxTokens, List.of(), (long) i);
    }

    /** {@code requests} calls, {@code clients} at a time, each client taking the next request when its last one is answered. */
    private static Round round(String via, int clients, int requests, int maxTokens, ExecutorService threads, Call call)
            throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicLong tokens = new AtomicLong();
        double[] latencies = new double[requests];
        long cpuStart = processCpuNanos();
        long start = System.nanoTime();
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            running.add(threads.submit(() -> {
                for (int i; (i = next.getAndIncrement()) < requests; ) {
                    long t0 = System.nanoTime();
                    tokens.addAndGet(call.tokens(i));
                    latencies[i] = (System.nanoTime() - t0) / 1e6;
                }
                return null;
            }));
        }
        for (Future<?> f : running) f.get();
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuMs = (processCpuNanos() - cpuStart) / 1e6 / requests;
        double[] sorted = latencies.clone();
        Arrays.sort(sorted);
        return new Round(via, clients, requests, seconds, requests / seconds, percentile(sorted, 0.50), percentile(sorted, 0.99),
                tokens.get(), cpuMs);
    }

    /** Each figure's median over the repetitions. */
    private static Round median(List<Round> reps) {
        Round first = reps.get(0);
        return new Round(first.via(), first.clients(), first.requests(),
                Samples.median(reps.stream().mapToDouble(Round::seconds).toArray()),
                Samples.median(reps.stream().mapToDouble(Round::perSecond).toArray()),
                Samples.median(reps.stream().mapToDouble(Round::p50Ms).toArray()),
                Samples.median(reps.stream().mapToDouble(Round::p99Ms).toArray()), first.tokens(),
                Samples.median(reps.stream().mapToDouble(Round::cpuMsPerCompletion).toArray()));
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[24];
        new SecureRandom().nextBytes(b);
        return b;
    }

    /**
     * CPU time of this whole process (server, clients, model): on a machine shared with other work it
     * says what a completion costs even when the wall clock does not.
     */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static double percentile(double[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }

    private static String describe(Round r) {
        return String.format("  %-6s %3d clients: %7.1f completions/s, p50 %7.1f ms, p99 %7.1f ms, %6.2f CPU ms/completion"
                        + " (%d requests, %d tokens, %.1f s)", r.via(), r.clients(), r.perSecond(), r.p50Ms(), r.p99Ms(),
                r.cpuMsPerCompletion(), r.requests(), r.tokens(), r.seconds());
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
