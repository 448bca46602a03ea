package dev.agentswarm.app.bench;

import com.typesafe.config.Config;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.cli.Report;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.learner.WeightsSource;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.workers.PolicyServer;
import dev.agentswarm.workers.WeightsFetcher;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * How long new weights take from the learner handing them to its weights source to every worker
 * node serving them: a cluster of one learner node and {@code workers} worker nodes on 127.0.0.1
 * (one JVM), the source on the first, a fetcher on each of the others. The bytes are arbitrary
 * (the transfer does not look inside them) and each worker's policy server is a stand-in that
 * takes them at once, so the figure is the transfer alone: announce, pull in chunks over the
 * large-message lane, verify. The real server's load is {@link LoopBenchmark#weightSwap}'s.
 *
 * <p>Start a cluster with {@link #start}, then {@link Cluster#publishToServed} per size;
 * {@link #figures} does both for 10 MB and 100 MB ({@code weights_10mb_s}, {@code weights_100mb_s}).
 */
public final class WeightsBenchmark {

    private WeightsBenchmark() {}

    /** Median seconds from publish to served on every worker node, for 10 MB and 100 MB, {@code rounds} each after one untimed. */
    public static Map<String, Object> figures(Config node, int workers, int rounds, Consumer<String> log) throws Exception {
        try (Cluster c = start(node, workers)) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("weights_nodes", workers);
            f.put("weights_10mb_s", Report.round(c.publishToServed(10_000_000, rounds, log), 3));
            f.put("weights_100mb_s", Report.round(c.publishToServed(100_000_000, rounds, log), 3));
            return f;
        }
    }

    /** Starts the learner node and {@code workers} worker nodes with the node configuration {@code node}. */
    public static Cluster start(Config node, int workers) throws Exception {
        EpisodeServices none = new EpisodeServices(ScriptedPolicy.replies("unused"), ToolRegistry.of());
        List<SwarmNode> nodes = new ArrayList<>();
        try {
            SwarmNode learner = SwarmNode.start(node, none, null);
            nodes.add(learner);
            ActorRef<WeightsProtocol.SourceCommand> source = learner.weightsSource();
            List<ActorRef<WeightsProtocol.FetcherCommand>> fetchers = new ArrayList<>();
            for (int i = 0; i < workers; i++) {
                SwarmNode w = SwarmNode.start(node, none, learner.address());
                nodes.add(w);
                ActorRef<PolicyServer.Command> server = w.system().systemActorOf(standInServer(), "policy-server", Props.empty());
                fetchers.add(WeightsFetcher.spawn(w.system(), node, server, 0, Long.MAX_VALUE)); // arbitrary bytes: no model bounds them
            }
            awaitTopics(learner.system(), workers, Duration.ofSeconds(30));
            return new Cluster(nodes, source, fetchers);
        } catch (Exception | Error e) {
            for (SwarmNode n : nodes) n.close();
            throw e;
        }
    }

    /**
     * Waits until a notices topic on {@code system} knows {@code others} instances with subscribers
     * (each fetcher's; a topic registers only once it has one): a notice published before the topics
     * find each other is missed and the node catches up only at its next poll, which would time the poll.
     */
    static void awaitTopics(ActorSystem<?> system, int others, Duration limit) throws Exception {
        ActorRef<Topic.Command<WeightsProtocol.WeightsNotice>> probe = system.systemActorOf(
                Topic.create(WeightsProtocol.WeightsNotice.class, WeightsProtocol.TOPIC), "bench-topic-probe-" + System.nanoTime(),
                Props.empty());
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) { // the probe stays: a topic without subscribers drops what it hears
            int known = AskPattern.<Topic.Command<WeightsProtocol.WeightsNotice>, Topic.TopicStats>ask(probe, Topic::getTopicStats,
                    Duration.ofSeconds(5), system.scheduler()).toCompletableFuture().get().topicInstanceCount();
            if (known >= others) return;
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the weights topic knows " + known + " of " + others + " instances after "
                        + limit.toSeconds() + " s");
            }
            Thread.sleep(50);
        }
    }

    /** Takes any bytes as loaded; their version is in their first 8 bytes (see {@link Cluster#publishToServed}). */
    private static Behavior<PolicyServer.Command> standInServer() {
        return Behaviors.receive(PolicyServer.Command.class)
                .onMessage(PolicyServer.LoadWeights.class, l -> {
                    l.replyTo().tell(new PolicyServer.WeightsLoaded(ByteBuffer.wrap(l.safetensors()).getLong(), null));
                    return Behaviors.same();
                })
                .build();
    }

    /** A running benchmark cluster; close it to stop every node. */
    public static final class Cluster implements AutoCloseable {

        private final List<SwarmNode> nodes;
        private final ActorRef<WeightsProtocol.SourceCommand> source;
        private final List<ActorRef<WeightsProtocol.FetcherCommand>> fetchers;
        private long version;

        private Cluster(List<SwarmNode> nodes, ActorRef<WeightsProtocol.SourceCommand> source,
                        List<ActorRef<WeightsProtocol.FetcherCommand>> fetchers) {
            this.nodes = nodes;
            this.source = source;
            this.fetchers = fetchers;
        }

        /**
         * Median seconds, over {@code rounds} publications of {@code bytes} bytes after one untimed
         * (it also lets the nodes find the source), from handing them to the source to every worker
         * node serving them.
         */
        public double publishToServed(int bytes, int rounds, Consumer<String> log) throws Exception {
            double[] s = new double[rounds];
            for (int r = -1; r < rounds; r++) {
                double t = once(bytes, r < 0 ? Duration.ofSeconds(60) : Duration.ofSeconds(30));
                if (r >= 0) s[r] = t;
            }
            double median = Samples.median(s);
            log.accept(String.format("weights %,d bytes to %d nodes: median %.3f s over %d (max %.3f s)", bytes, fetchers.size(), median,
                    rounds, java.util.Arrays.stream(s).max().orElse(0)));
            return median;
        }

        /** Seconds from publishing one new version of {@code bytes} bytes to every worker serving it. */
        private double once(int bytes, Duration limit) throws Exception {
            long v = ++version;
            byte[] weights = new byte[bytes];
            new SplittableRandom(v).nextBytes(weights);
            ByteBuffer.wrap(weights).putLong(v);
            long t0 = System.nanoTime();
            source.tell(new WeightsSource.Publish(v, weights, null));
            List<CompletableFuture<WeightsFetcher.Serving>> served = new ArrayList<>();
            for (int i = 0; i < fetchers.size(); i++) {
                served.add(WeightsFetcher.awaitVersion(fetchers.get(i), v, limit, nodes.get(i + 1).system().scheduler()).toCompletableFuture());
            }
            CompletableFuture.allOf(served.toArray(CompletableFuture[]::new)).get();
            return (System.nanoTime() - t0) / 1e9;
        }

        @Override
        public void close() {
            for (int i = nodes.size() - 1; i >= 0; i--) nodes.get(i).close();
        }
    }

    /** {@code WeightsBenchmark [workers] [MB...]}: prints the median seconds per size (5 rounds each). */
    public static void main(String[] args) throws Exception {
        int workers = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        Config node = SwarmNode.loadConfig(null);
        List<Integer> megabytes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) megabytes.add(Integer.parseInt(args[i]));
        if (megabytes.isEmpty()) megabytes = List.of(10, 100);
        try (Cluster c = start(node, workers)) {
            for (int mb : megabytes) c.publishToServed(mb * 1_000_000, 5, System.out::println);
        }
        System.exit(0);
    }
}
