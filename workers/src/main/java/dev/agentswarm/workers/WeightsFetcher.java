package dev.agentswarm.workers;

import com.typesafe.config.Config;
import dev.agentswarm.core.CborSerializable;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.core.protocol.WeightsProtocol.ChunkUnavailable;
import dev.agentswarm.core.protocol.WeightsProtocol.FetchChunk;
import dev.agentswarm.core.protocol.WeightsProtocol.FetchWhole;
import dev.agentswarm.core.protocol.WeightsProtocol.FetcherCommand;
import dev.agentswarm.core.protocol.WeightsProtocol.GetLatest;
import dev.agentswarm.core.protocol.WeightsProtocol.Latest;
import dev.agentswarm.core.protocol.WeightsProtocol.SourceCommand;
import dev.agentswarm.core.protocol.WeightsProtocol.WeightsChunk;
import dev.agentswarm.core.protocol.WeightsProtocol.WeightsNotice;
import dev.agentswarm.core.protocol.WeightsProtocol.WholeWeights;
import dev.agentswarm.core.protocol.WeightsSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Keeps the node's {@link PolicyServer} on the newest weights the learner published, wherever the
 * learner runs. It follows the notices on the {@link WeightsProtocol#TOPIC} topic and the weights
 * sources in the Receptionist; on a version newer than the one served it pulls the chunks from the
 * source (at most {@code agentswarm.weights.window} requests outstanding, a chunk asked again when
 * its reply is late or fails its CRC32C, a newer version announced mid-fetch taking over), checks
 * that every chunk is in and the size ({@link WeightsAssembly}), and hands the whole to the server,
 * counting the version as served only once the server says it loaded it. From a source in its own
 * actor system (the learner on this node, as in the embedded default) it asks for the whole version
 * in one message instead and hands the source's array on as it is: nothing to copy or check, it never
 * left the JVM. At start, whenever a source appears, and every
 * {@code poll-interval}, it asks the sources for their newest version: a node that joined late or
 * missed a notice catches up without a new publication.
 *
 * <p>What it accepts. A notice (on the topic, or a source's answer) is taken only as its
 * {@link WeightsAcceptance} says: from a source on a learner member, and no larger than the node's
 * model implies; one refused is logged, naming its source, and changes nothing. Each fetch draws a random nonce that its
 * requests carry and the source echoes: a chunk without it (forged to match its CRC32C by another
 * member, which any member could do) is not taken.
 *
 * <p>Waiting for weights (the API for gating a node's work). Spawn one per node with
 * {@link #spawn} ({@link EmbeddedPolicy#spawn} does, see {@link EmbeddedPolicy#weights()}), then:
 * <ul>
 *   <li>{@link #awaitCurrent(ActorRef, Duration, Scheduler)} completes with {@link Serving} once a
 *       source has been heard from and the node serves the newest version known to it (at once if
 *       a source answered that it has published nothing yet). In a cluster without a learner no
 *       source ever answers: it then fails with the timeout, so gate on it only where a learner runs.
 *   <li>{@link #awaitVersion(ActorRef, long, Duration, Scheduler)} completes once the node serves
 *       {@code atLeast} or newer (a version the coordinator asks for, say).
 *   <li>{@link GetServing} answers at once with the version served and the newest known.
 * </ul>
 * Publishing is the learner's side: {@code WeightsSource.Publish(version, bytes, replyTo)} to the
 * learner node's weights source.
 */
public final class WeightsFetcher extends AbstractBehavior<FetcherCommand> {

    /** The actor's name under /system, where {@link #spawn} puts it; chunk replies come to this path on the large-message lane. */
    public static final String NAME = "weights-fetcher";

    /** Answer {@link Serving} once the node serves {@code atLeast} or a newer version. */
    public record AwaitVersion(long atLeast, ActorRef<Serving> replyTo) implements FetcherCommand {}

    /** Answer {@link Serving} once a source was heard from and the node serves the newest version known. */
    public record AwaitCurrent(ActorRef<Serving> replyTo) implements FetcherCommand {}

    /** Answer {@link Serving} now. */
    public record GetServing(ActorRef<Serving> replyTo) implements FetcherCommand {}

    /** The version the node's policy server serves, and the newest one a source announced (at least {@code version}). */
    public record Serving(long version, long newest) implements CborSerializable {}

    private record SourcesChanged(Receptionist.Listing listing) implements FetcherCommand, NoSerializationVerificationNeeded {}

    private record ChunkTimedOut(long version, int index) implements FetcherCommand, NoSerializationVerificationNeeded {}

    private record Loaded(PolicyServer.WeightsLoaded result) implements FetcherCommand, NoSerializationVerificationNeeded {}

    private enum Poll implements FetcherCommand, NoSerializationVerificationNeeded { INSTANCE }

    private final ActorRef<PolicyServer.Command> server;
    private final WeightsSettings settings;
    private final long maxChunkBytes;
    private final TimerScheduler<FetcherCommand> timers;
    private final ActorRef<PolicyServer.WeightsLoaded> loaded;
    private Set<ActorRef<SourceCommand>> sources = Set.of();
    private long served;
    private WeightsNotice newest;
    private boolean heard;
    private final Predicate<ActorRef<?>> inThisJvm;
    private final WeightsAcceptance acceptance;
    private WeightsNotice refused; // a version that failed its checks or its load is not fetched again
    private WeightsNotice fetching; // the version being fetched, null when none
    private long nonce; // drawn for each fetch; an answer without it was not asked for (WeightsProtocol.FetchChunk)
    private WeightsAssembly assembly; // its chunks; null when it comes whole from this JVM
    private long fetchStarted;
    private static final java.security.SecureRandom NONCES = new java.security.SecureRandom();
    private final Map<Integer, Integer> outstanding = new HashMap<>(); // chunk index (or WHOLE) → retries so far
    private int nextIndex;
    private WeightsNotice loading;
    private final List<AwaitVersion> awaitingVersion = new ArrayList<>();
    private final List<ActorRef<Serving>> awaitingCurrent = new ArrayList<>();

    /**
     * @param served the version the server serves at start (the configured weights' version)
     * @param maxChunkBytes the largest chunk this node's large-message lane takes ({@link WeightsSettings#maxChunkBytes})
     */
    public static Behavior<FetcherCommand> create(ActorRef<PolicyServer.Command> server, long served, WeightsSettings settings,
                                                  long maxChunkBytes) {
        return create(server, served, settings, maxChunkBytes, WeightsProtocol::inThisJvm);
    }

    /** The same, taking only the versions {@code acceptance} takes. */
    public static Behavior<FetcherCommand> create(ActorRef<PolicyServer.Command> server, long served, WeightsSettings settings,
                                                  long maxChunkBytes, WeightsAcceptance acceptance) {
        return create(server, served, settings, maxChunkBytes, WeightsProtocol::inThisJvm, acceptance);
    }

    /**
     * The same, with {@code inThisJvm} telling the sources of the fetcher's own JVM, whose versions it
     * takes whole (tests of the chunked path, whose scripted sources are local, say none is).
     */
    static Behavior<FetcherCommand> create(ActorRef<PolicyServer.Command> server, long served, WeightsSettings settings,
                                           long maxChunkBytes, Predicate<ActorRef<?>> inThisJvm) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new WeightsFetcher(ctx, timers, server, served, settings, maxChunkBytes,
                inThisJvm, WeightsAcceptance.learners(ctx.getSystem(), Long.MAX_VALUE))));
    }

    /** The same, taking only the versions {@code acceptance} takes. */
    static Behavior<FetcherCommand> create(ActorRef<PolicyServer.Command> server, long served, WeightsSettings settings,
                                           long maxChunkBytes, Predicate<ActorRef<?>> inThisJvm, WeightsAcceptance acceptance) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new WeightsFetcher(ctx, timers, server, served, settings, maxChunkBytes,
                inThisJvm, acceptance)));
    }

    /**
     * Spawns the node's fetcher as {@code /system/weights-fetcher} on the weights dispatcher, feeding
     * {@code server}, with {@code agentswarm.weights} from {@code config}, taking versions of at most
     * {@code maxBytes} from learner members; refuses a chunk size that cannot fit in the node's large frame.
     */
    public static ActorRef<FetcherCommand> spawn(ActorSystem<?> system, Config config, ActorRef<PolicyServer.Command> server, long served,
                                                 long maxBytes) {
        Config node = system.settings().config();
        WeightsSettings settings = WeightsSettings.fromConfig(config.withFallback(node), node);
        return system.systemActorOf(create(server, served, settings, WeightsSettings.maxChunkBytes(node),
                WeightsAcceptance.learners(system, maxBytes)), NAME,
                DispatcherSelector.fromConfig("agentswarm.weights-dispatcher"));
    }

    /** Completes once the node serves the newest version a source announced (see the class comment). */
    public static CompletionStage<Serving> awaitCurrent(ActorRef<FetcherCommand> fetcher, Duration timeout, Scheduler scheduler) {
        return AskPattern.ask(fetcher, AwaitCurrent::new, timeout, scheduler);
    }

    /** Completes once the node serves {@code atLeast} or a newer version. */
    public static CompletionStage<Serving> awaitVersion(ActorRef<FetcherCommand> fetcher, long atLeast, Duration timeout,
                                                        Scheduler scheduler) {
        return AskPattern.ask(fetcher, replyTo -> new AwaitVersion(atLeast, replyTo), timeout, scheduler);
    }

    private WeightsFetcher(ActorContext<FetcherCommand> context, TimerScheduler<FetcherCommand> timers, ActorRef<PolicyServer.Command> server,
                           long served, WeightsSettings settings, long maxChunkBytes, Predicate<ActorRef<?>> inThisJvm,
                           WeightsAcceptance acceptance) {
        super(context);
        this.inThisJvm = inThisJvm;
        this.acceptance = acceptance;
        this.timers = timers;
        this.server = server;
        this.served = served;
        this.settings = settings;
        this.maxChunkBytes = maxChunkBytes;
        this.loaded = context.messageAdapter(PolicyServer.WeightsLoaded.class, Loaded::new);
        ActorRef<Topic.Command<WeightsNotice>> topic = context.spawn(Topic.create(WeightsNotice.class, WeightsProtocol.TOPIC), "topic");
        topic.tell(Topic.subscribe(context.getSelf().narrow()));
        context.getSystem().receptionist().tell(Receptionist.subscribe(WeightsProtocol.SOURCE_KEY,
                context.messageAdapter(Receptionist.Listing.class, SourcesChanged::new)));
        timers.startTimerWithFixedDelay(Poll.INSTANCE, settings.pollInterval());
    }

    @Override
    public Receive<FetcherCommand> createReceive() {
        return newReceiveBuilder()
                .onMessage(WeightsNotice.class, this::onNotice)
                .onMessage(Latest.class, this::onLatest)
                .onMessage(WeightsChunk.class, this::onChunk)
                .onMessage(WholeWeights.class, this::onWhole)
                .onMessage(ChunkUnavailable.class, this::onUnavailable)
                .onMessage(ChunkTimedOut.class, this::onTimedOut)
                .onMessage(Loaded.class, this::onLoaded)
                .onMessage(SourcesChanged.class, this::onSourcesChanged)
                .onMessageEquals(Poll.INSTANCE, this::onPoll)
                .onMessage(AwaitVersion.class, this::onAwaitVersion)
                .onMessage(AwaitCurrent.class, this::onAwaitCurrent)
                .onMessage(GetServing.class, g -> {
                    g.replyTo().tell(serving());
                    return this;
                })
                .build();
    }

    private Behavior<FetcherCommand> onNotice(WeightsNotice n) {
        heard = true;
        consider(n);
        return this;
    }

    private Behavior<FetcherCommand> onLatest(Latest l) {
        heard = true;
        if (l.notice() != null) consider(l.notice());
        else answerWaiting();
        return this;
    }

    private void consider(WeightsNotice n) {
        String refusal = acceptance.refusal(n);
        if (refusal != null) {
            getContext().getLog().warn(refusal);
            answerWaiting();
            return;
        }
        if (newest == null || n.version() > newest.version()
                || n.version() == newest.version() && n.hasChecksums() && !newest.hasChecksums()) {
            newest = n;
        }
        advance();
        answerWaiting();
    }

    /** Starts fetching the newest version when it is newer than the one served and nothing is loading. */
    private void advance() {
        if (loading != null || newest == null || newest.version() <= served || isRefused(newest)) return;
        if (fetching != null) {
            if (fetching.version() == newest.version()) return;
            getContext().getLog().info("weights version {} announced while fetching {}: fetching {} instead", newest.version(),
                    fetching.version(), newest.version());
            abandon();
        }
        fetchStarted = System.nanoTime();
        nonce = NONCES.nextLong();
        if (inThisJvm.test(newest.source())) {
            fetching = newest;
            request(WeightsProtocol.WHOLE, 0);
            return;
        }
        if (!newest.hasChecksums()) {
            // Announced before the source knew of fetchers on other nodes: its newest comes with them.
            newest.source().tell(new GetLatest(getContext().getSelf()));
            return;
        }
        if (newest.chunkSize() > maxChunkBytes) {
            getContext().getLog().error("cannot fetch weights version {}: its chunks of {} bytes do not fit in this node's large frame ({}); "
                    + "raise {} here or lower {}.chunk-size on the learner's node", newest.version(), newest.chunkSize(),
                    WeightsSettings.FRAME_KEY, WeightsSettings.FRAME_KEY, WeightsSettings.CONFIG_PATH);
            refused = newest;
            return;
        }
        try {
            assembly = new WeightsAssembly(newest);
        } catch (IllegalArgumentException e) {
            getContext().getLog().error("cannot fetch weights: {}", e.getMessage());
            refused = newest;
            return;
        }
        fetching = newest;
        nextIndex = 0;
        fill();
    }

    /** The same version of the same source as the one refused (its notice with checksums or without). */
    private boolean isRefused(WeightsNotice n) {
        return refused != null && n.version() == refused.version() && n.source().equals(refused.source());
    }

    private void fill() {
        while (outstanding.size() < settings.window() && nextIndex < fetching.chunkCount()) {
            if (!assembly.has(nextIndex)) request(nextIndex, 0);
            nextIndex++;
        }
    }

    /** Asks for chunk {@code index}, or the whole version when it is {@link WeightsProtocol#WHOLE}. */
    private void request(int index, int retries) {
        WeightsNotice n = fetching;
        outstanding.put(index, retries);
        n.source().tell(index == WeightsProtocol.WHOLE ? new FetchWhole(n.version(), nonce, getContext().getSelf())
                : new FetchChunk(n.version(), index, nonce, getContext().getSelf()));
        timers.startSingleTimer(index, new ChunkTimedOut(n.version(), index), settings.chunkTimeout());
    }

    private void retry(int index, int retries) {
        if (retries > settings.maxRetries()) {
            giveUp((index == WeightsProtocol.WHOLE ? "the whole version" : "chunk " + index) + " did not come after " + retries + " requests");
        } else {
            request(index, retries);
        }
    }

    private Behavior<FetcherCommand> onChunk(WeightsChunk c) {
        // A late reply to an abandoned fetch, or one nobody asked for (another member's forgery): not this fetch's nonce.
        if (assembly == null || c.version() != fetching.version() || c.nonce() != nonce) return this;
        Integer retries = outstanding.remove(c.index());
        if (retries != null) timers.cancel(c.index());
        try {
            assembly.add(c.version(), c.index(), c.bytes());
        } catch (IllegalArgumentException e) {
            getContext().getLog().warn("refused a chunk: {}", e.getMessage());
            if (retries == null) return this;
            if (retries + 1 > settings.maxRetries()) {
                // The source sends the same wrong bytes again and again: they will not change by asking.
                refuse("chunk " + c.index() + " was wrong " + (retries + 1) + " times in a row");
            } else {
                request(c.index(), retries + 1);
            }
            return this;
        }
        fill();
        if (assembly.complete()) {
            byte[] bytes;
            try {
                bytes = assembly.verified();
            } catch (IllegalStateException e) {
                refuse(e.getMessage());
                return this;
            }
            finish(bytes);
        }
        return this;
    }

    private Behavior<FetcherCommand> onWhole(WholeWeights w) {
        if (fetching == null || assembly != null || w.version() != fetching.version() || w.nonce() != nonce) return this;
        if (outstanding.remove(WeightsProtocol.WHOLE) == null) return this; // a retried request answered twice
        timers.cancel(WeightsProtocol.WHOLE);
        if (w.bytes() == null || w.bytes().length != fetching.totalBytes()) {
            refuse("they are " + (w.bytes() == null ? 0 : w.bytes().length) + " bytes, announced " + fetching.totalBytes());
            return this;
        }
        finish(w.bytes());
        return this;
    }

    private Behavior<FetcherCommand> onUnavailable(ChunkUnavailable u) {
        if (fetching == null || u.version() != fetching.version() || u.nonce() != nonce) return this;
        getContext().getLog().info("weights version {} is no longer held by its source (it holds {})", u.version(),
                u.newest() == null ? "none" : u.newest().version());
        abandon();
        if (u.newest() != null) consider(u.newest());
        return this;
    }

    private Behavior<FetcherCommand> onTimedOut(ChunkTimedOut t) {
        Integer retries = outstanding.get(t.index());
        if (fetching == null || t.version() != fetching.version() || retries == null) return this;
        retry(t.index(), retries + 1);
        return this;
    }

    /** The whole version is in and checked: handed to the server. */
    private void finish(byte[] bytes) {
        WeightsNotice n = fetching;
        boolean whole = assembly == null;
        abandon();
        long ms = (System.nanoTime() - fetchStarted) / 1_000_000;
        if (whole) {
            getContext().getLog().info("weights version {} taken whole from this JVM's source: {} bytes in {} ms", n.version(),
                    n.totalBytes(), ms);
        } else {
            getContext().getLog().info("weights version {} fetched: {} bytes in {} chunks in {} ms", n.version(), n.totalBytes(),
                    n.chunkCount(), ms);
        }
        loading = n;
        server.tell(new PolicyServer.LoadWeights(bytes, loaded));
    }

    /** The version being fetched fails its checks: never loaded, and not fetched again. */
    private void refuse(String why) {
        getContext().getLog().error("refused fetched weights version {}: {}", fetching.version(), why);
        refused = fetching;
        abandon();
    }

    private void giveUp(String why) {
        getContext().getLog().warn("gave up fetching weights version {}: {}; asking the sources again", fetching.version(), why);
        abandon();
        askSources();
    }

    private void abandon() {
        for (Integer index : outstanding.keySet()) timers.cancel(index);
        outstanding.clear();
        fetching = null;
        assembly = null;
    }

    private Behavior<FetcherCommand> onLoaded(Loaded l) {
        WeightsNotice n = loading;
        loading = null;
        if (n == null) return this;
        if (l.result().error() != null) {
            getContext().getLog().error("the policy server refused weights version {}: {}", n.version(), l.result().error());
            refused = n;
        } else {
            if (l.result().version() != n.version()) {
                getContext().getLog().warn("weights announced as version {} carry version {} in their metadata", n.version(),
                        l.result().version());
            }
            served = Math.max(served, n.version());
        }
        advance();
        answerWaiting();
        return this;
    }

    private Behavior<FetcherCommand> onSourcesChanged(SourcesChanged c) {
        Set<ActorRef<SourceCommand>> now = c.listing().getServiceInstances(WeightsProtocol.SOURCE_KEY);
        for (ActorRef<SourceCommand> s : now) {
            if (!sources.contains(s)) s.tell(new GetLatest(getContext().getSelf()));
        }
        Set<ActorRef<SourceCommand>> gone = new HashSet<>(sources);
        gone.removeAll(now);
        sources = Set.copyOf(now);
        // A version only a departed source held cannot be fetched: forget it, the sources left say what is newest.
        if (newest != null && newest.version() > served && gone.contains(newest.source())) {
            if (fetching != null && fetching.source().equals(newest.source())) abandon();
            newest = null;
            askSources();
        }
        return this;
    }

    private Behavior<FetcherCommand> onPoll() {
        askSources();
        return this;
    }

    private void askSources() {
        for (ActorRef<SourceCommand> s : sources) s.tell(new GetLatest(getContext().getSelf()));
    }

    private Behavior<FetcherCommand> onAwaitVersion(AwaitVersion a) {
        if (served >= a.atLeast()) {
            a.replyTo().tell(serving());
        } else {
            awaitingVersion.add(a);
            if (newest == null || newest.version() < a.atLeast()) askSources(); // a notice may have been missed
        }
        return this;
    }

    private Behavior<FetcherCommand> onAwaitCurrent(AwaitCurrent a) {
        if (current()) {
            a.replyTo().tell(serving());
        } else {
            awaitingCurrent.add(a.replyTo());
            askSources();
        }
        return this;
    }

    private boolean current() {
        return heard && (newest == null || served >= newest.version());
    }

    private Serving serving() {
        return new Serving(served, newest == null ? served : Math.max(served, newest.version()));
    }

    private void answerWaiting() {
        awaitingVersion.removeIf(a -> {
            if (served < a.atLeast()) return false;
            a.replyTo().tell(serving());
            return true;
        });
        if (current()) {
            for (ActorRef<Serving> r : awaitingCurrent) r.tell(serving());
            awaitingCurrent.clear();
        }
    }
}
