package dev.agentswarm.learner;

import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.core.protocol.WeightsProtocol.ChunkUnavailable;
import dev.agentswarm.core.protocol.WeightsProtocol.FetchChunk;
import dev.agentswarm.core.protocol.WeightsProtocol.FetchWhole;
import dev.agentswarm.core.protocol.WeightsProtocol.GetLatest;
import dev.agentswarm.core.protocol.WeightsProtocol.Latest;
import dev.agentswarm.core.protocol.WeightsProtocol.SourceCommand;
import dev.agentswarm.core.protocol.WeightsProtocol.WeightsChunk;
import dev.agentswarm.core.protocol.WeightsProtocol.WeightsNotice;
import dev.agentswarm.core.protocol.WeightsProtocol.WholeWeights;
import dev.agentswarm.core.protocol.WeightsSettings;
import java.util.function.Predicate;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Holds the learner's newest weights (and the version before, so a fetch already under way can
 * finish) and lets every node pull them: after each {@link Publish} it announces a small
 * {@link WeightsNotice} on the {@link WeightsProtocol#TOPIC} topic and answers chunk requests from
 * the bytes it holds. It registers with the Receptionist under {@link WeightsProtocol#SOURCE_KEY},
 * so a node that joins late, or missed a notice, finds it and asks for the newest ({@link GetLatest}).
 * A fetcher on its own node asks for the whole version instead ({@link FetchWhole}) and gets the
 * array it holds, by reference. The per-chunk checksums are for fetchers on other nodes: the source
 * computes them once per version, and only once such a fetcher has asked it something (each asks
 * for the newest when it finds the source), so a single node never spends time on them.
 *
 * <p>Spawn it on the learner's node with {@link #spawn} (or as a child of the learner where the
 * learner is a cluster singleton); it checksums and copies megabytes, so it runs on
 * {@code agentswarm.weights-dispatcher}.
 */
public final class WeightsSource extends AbstractBehavior<SourceCommand> {

    /** The actor's name under /system, where {@link #spawn} puts it. */
    public static final String NAME = "weights-source";

    /**
     * Hold and announce {@code bytes} (safetensors) as version {@code version}; {@code replyTo}, if
     * not null, hears the notice. From the learner on the same node only: the bytes are the whole
     * model, never sent as one message between nodes. The source keeps the array and shares it with
     * the fetchers of its node: nobody writes it after this.
     */
    public record Publish(long version, byte[] bytes, ActorRef<WeightsNotice> replyTo)
            implements SourceCommand, NoSerializationVerificationNeeded {}

    private record Held(WeightsNotice notice, byte[] bytes) {}

    private final WeightsSettings settings;
    private final Predicate<ActorRef<?>> inThisJvm;
    private boolean othersFetch; // a fetcher on another node has asked: versions get their checksums at publication
    private final ActorRef<Topic.Command<WeightsNotice>> topic;
    private Held current;
    private Held previous;

    public static Behavior<SourceCommand> create(WeightsSettings settings) {
        return create(settings, WeightsProtocol::inThisJvm);
    }

    /** The same, with {@code inThisJvm} telling the fetchers of the source's own JVM (tests stand in for other nodes). */
    static Behavior<SourceCommand> create(WeightsSettings settings, Predicate<ActorRef<?>> inThisJvm) {
        return Behaviors.setup(ctx -> new WeightsSource(ctx, settings, inThisJvm));
    }

    /**
     * Spawns the node's source as {@code /system/weights-source} on the weights dispatcher, with the
     * settings of the system's configuration; refuses a chunk size that cannot fit in the node's large frame.
     */
    public static ActorRef<SourceCommand> spawn(ActorSystem<?> system) {
        WeightsSettings settings = WeightsSettings.fromConfig(system.settings().config());
        return system.systemActorOf(create(settings), NAME, DispatcherSelector.fromConfig("agentswarm.weights-dispatcher"));
    }

    private WeightsSource(ActorContext<SourceCommand> context, WeightsSettings settings, Predicate<ActorRef<?>> inThisJvm) {
        super(context);
        this.settings = settings;
        this.inThisJvm = inThisJvm;
        this.topic = context.spawn(Topic.create(WeightsNotice.class, WeightsProtocol.TOPIC), "topic");
        context.getSystem().receptionist().tell(Receptionist.register(WeightsProtocol.SOURCE_KEY, context.getSelf()));
    }

    @Override
    public Receive<SourceCommand> createReceive() {
        return newReceiveBuilder()
                .onMessage(Publish.class, this::onPublish)
                .onMessage(FetchChunk.class, this::onFetch)
                .onMessage(FetchWhole.class, this::onFetchWhole)
                .onMessage(GetLatest.class, this::onGetLatest)
                .build();
    }

    private Behavior<SourceCommand> onPublish(Publish p) {
        if (current != null && p.version() <= current.notice().version()) {
            // Fetchers only move forward: an older or equal version would never be served anywhere.
            getContext().getLog().warn("not publishing weights version {}: version {} is out already", p.version(),
                    current.notice().version());
            return this;
        }
        WeightsNotice notice = othersFetch ? WeightsNotice.of(p.version(), p.bytes(), settings.chunkSize(), getContext().getSelf())
                : WeightsNotice.withoutChecksums(p.version(), p.bytes().length, settings.chunkSize(), getContext().getSelf());
        previous = current;
        current = new Held(notice, p.bytes());
        topic.tell(Topic.publish(notice));
        if (p.replyTo() != null) p.replyTo().tell(notice);
        getContext().getLog().info("weights version {} published: {} bytes in {} chunks", notice.version(), notice.totalBytes(),
                notice.chunkCount());
        return this;
    }

    private Behavior<SourceCommand> onFetch(FetchChunk f) {
        heardFrom(f.replyTo());
        Held held = held(f.version());
        if (held == null || f.index() < 0 || f.index() >= held.notice().chunkCount()) {
            f.replyTo().tell(new ChunkUnavailable(f.version(), f.index(), f.nonce(), current == null ? null : current.notice()));
        } else {
            f.replyTo().tell(new WeightsChunk(f.version(), f.index(), f.nonce(), held.notice().slice(held.bytes(), f.index())));
        }
        return this;
    }

    private Behavior<SourceCommand> onFetchWhole(FetchWhole f) {
        if (!inThisJvm.test(f.replyTo())) {
            // The whole model in one message would exceed any frame between nodes: they pull chunks.
            getContext().getLog().warn("not sending all of weights version {} to {} on another node: it pulls chunks",
                    f.version(), f.replyTo());
            return this;
        }
        Held held = held(f.version());
        if (held == null) {
            f.replyTo().tell(new ChunkUnavailable(f.version(), WeightsProtocol.WHOLE, f.nonce(), current == null ? null : current.notice()));
        } else {
            f.replyTo().tell(new WholeWeights(f.version(), f.nonce(), held.bytes()));
        }
        return this;
    }

    /**
     * A fetcher on another node needs the checksums of what it is told about: from now on versions get
     * them at publication, and the one held now gets them at once (the previous one is only ever
     * fetched by those who were told of it, with checksums).
     */
    private void heardFrom(ActorRef<?> fetcher) {
        if (inThisJvm.test(fetcher)) return;
        othersFetch = true;
        if (current != null && !current.notice().hasChecksums()) {
            current = new Held(current.notice().withChecksums(current.bytes()), current.bytes());
        }
    }

    private Held held(long version) {
        if (current != null && current.notice().version() == version) return current;
        return previous != null && previous.notice().version() == version ? previous : null;
    }

    private Behavior<SourceCommand> onGetLatest(GetLatest g) {
        heardFrom(g.replyTo());
        g.replyTo().tell(new Latest(current == null ? null : current.notice()));
        return this;
    }
}
