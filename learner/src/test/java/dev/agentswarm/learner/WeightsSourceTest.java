package dev.agentswarm.learner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
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
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.Random;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The learner's weights source: notices on the topic, chunks on request, the newest for whoever asks,
 * whole versions by reference for its own JVM. The probes are all local: a predicate says which
 * stand for fetchers on other nodes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WeightsSourceTest {

    private final ActorTestKit kit = ActorTestKit.create("source",
            ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(ConfigFactory.load()));

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static final WeightsSettings SETTINGS = new WeightsSettings(1000, 4, Duration.ofSeconds(1), 1, Duration.ofHours(1));

    @Test
    void announcesEachVersionAndServesItsChunksAndThePreviousOnesUntilReplaced() throws Exception {
        TestProbe<WeightsNotice> topicListener = kit.createTestProbe();
        ActorRef<Topic.Command<WeightsNotice>> topic = kit.spawn(Topic.create(WeightsNotice.class, WeightsProtocol.TOPIC), "listener-topic");
        topic.tell(Topic.subscribe(topicListener.getRef()));
        TestProbe<FetcherCommand> fetcher = kit.createTestProbe(); // on another node
        TestProbe<FetcherCommand> local = kit.createTestProbe(); // on the source's node
        ActorRef<SourceCommand> source = kit.spawn(WeightsSource.create(SETTINGS, ref -> !ref.equals(fetcher.getRef())), "source");
        TestProbe<Topic.TopicStats> stats = kit.createTestProbe();
        stats.awaitAssert(() -> { // the source's topic and the listener's have found each other
            topic.tell(Topic.getTopicStats(stats.getRef()));
            assertEquals(1, stats.receiveMessage().topicInstanceCount());
            return null;
        });
        source.tell(new GetLatest(fetcher.getRef()));
        assertNull(fetcher.expectMessageClass(Latest.class).notice(), "nothing published yet");

        byte[] v1 = bytes(2500, 1);
        TestProbe<WeightsNotice> published = kit.createTestProbe();
        source.tell(new WeightsSource.Publish(1, v1, published.getRef()));
        WeightsNotice n1 = published.receiveMessage();
        assertEquals(n1, topicListener.receiveMessage(), "the same notice goes on the topic");
        assertEquals(2500, n1.totalBytes());
        assertEquals(3, n1.chunkCount());
        assertTrue(n1.hasChecksums(), "a fetcher on another node has asked: the notice carries the checksums");
        for (int i = 0; i < 3; i++) {
            assertEquals(WeightsProtocol.crc32c(v1, i * 1000, n1.chunkLength(i)), n1.checksums()[i], "chunk " + i + "'s CRC32C");
        }
        assertEquals(source, n1.source());
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        for (int i = 0; i < n1.chunkCount(); i++) {
            n1.source().tell(new FetchChunk(1, i, 77, fetcher.getRef()));
            WeightsChunk c = fetcher.expectMessageClass(WeightsChunk.class);
            assertEquals(i, c.index());
            assertEquals(77, c.nonce(), "the request's nonce comes back");
            whole.writeBytes(c.bytes());
        }
        assertArrayEquals(v1, whole.toByteArray());

        byte[] v2 = bytes(1200, 2);
        source.tell(new WeightsSource.Publish(2, v2, null));
        WeightsNotice n2 = topicListener.receiveMessage();
        assertEquals(2, n2.version());
        source.tell(new FetchChunk(1, 2, 77, fetcher.getRef()));
        assertEquals(500, fetcher.expectMessageClass(WeightsChunk.class).bytes().length, "a fetch of the previous version can finish");
        source.tell(new WeightsSource.Publish(3, bytes(900, 3), null));
        WeightsNotice n3 = topicListener.receiveMessage();
        source.tell(new FetchChunk(1, 0, 77, fetcher.getRef()));
        assertEquals(new ChunkUnavailable(1, 0, 77, n3), fetcher.expectMessageClass(ChunkUnavailable.class), "gone, and what is newest");
        source.tell(new FetchChunk(3, 1, 77, fetcher.getRef()));
        assertEquals(1, fetcher.expectMessageClass(ChunkUnavailable.class).index(), "version 3 has one chunk");

        source.tell(new FetchWhole(3, 77, local.getRef()));
        assertEquals(900, local.expectMessageClass(WholeWeights.class).bytes().length, "all of a version at once, for this JVM");
        source.tell(new FetchWhole(1, 77, local.getRef()));
        assertEquals(new ChunkUnavailable(1, WeightsProtocol.WHOLE, 77, n3), local.expectMessageClass(ChunkUnavailable.class),
                "with the request's nonce");
        source.tell(new FetchWhole(3, 77, fetcher.getRef()));
        fetcher.expectNoMessage(Duration.ofMillis(200)); // never the whole model to another node: it pulls chunks

        source.tell(new WeightsSource.Publish(2, v2, null)); // not newer: refused
        topicListener.expectNoMessage(Duration.ofMillis(200));
        source.tell(new GetLatest(fetcher.getRef()));
        assertEquals(n3, fetcher.expectMessageClass(Latest.class).notice());

        TestProbe<Receptionist.Listing> listing = kit.createTestProbe();
        kit.system().receptionist().tell(Receptionist.find(WeightsProtocol.SOURCE_KEY, listing.getRef()));
        assertTrue(listing.receiveMessage().getServiceInstances(WeightsProtocol.SOURCE_KEY).contains(source),
                "nodes find the source through the Receptionist");
    }

    @Test
    void aFetcherInTheSameJvmGetsTheVeryArrayPublished() {
        // Without serialize-messages, as in production: a local message is never copied.
        ActorTestKit plain = ActorTestKit.create("source-local");
        try {
            ActorRef<SourceCommand> source = plain.spawn(WeightsSource.create(SETTINGS), "source");
            byte[] v1 = bytes(2500, 1);
            TestProbe<WeightsNotice> published = plain.createTestProbe();
            source.tell(new WeightsSource.Publish(1, v1, published.getRef()));
            published.receiveMessage();
            TestProbe<FetcherCommand> fetcher = plain.createTestProbe();
            source.tell(new FetchWhole(1, 77, fetcher.getRef()));
            assertSame(v1, fetcher.expectMessageClass(WholeWeights.class).bytes(), "by reference, no copy");
        } finally {
            plain.shutdownTestKit();
        }
    }

    @Test
    void checksumsAreComputedOnlyOnceAFetcherOnAnotherNodeAsks() {
        TestProbe<FetcherCommand> remote = kit.createTestProbe();
        TestProbe<FetcherCommand> local = kit.createTestProbe();
        ActorRef<SourceCommand> source = kit.spawn(WeightsSource.create(SETTINGS, ref -> !ref.equals(remote.getRef())), "source-lazy");
        byte[] v1 = bytes(2500, 1);
        TestProbe<WeightsNotice> published = kit.createTestProbe();
        source.tell(new WeightsSource.Publish(1, v1, published.getRef()));
        assertFalse(published.receiveMessage().hasChecksums(), "a single node needs none");
        source.tell(new GetLatest(local.getRef()));
        assertFalse(local.expectMessageClass(Latest.class).notice().hasChecksums());

        source.tell(new GetLatest(remote.getRef()));
        WeightsNotice checked = remote.expectMessageClass(Latest.class).notice();
        assertEquals(1, checked.version());
        assertEquals(WeightsNotice.of(1, v1, 1000, source), checked, "the version held gets them when another node asks");
        source.tell(new WeightsSource.Publish(2, bytes(1200, 2), published.getRef()));
        assertTrue(published.receiveMessage().hasChecksums(), "and every version after, from its publication");
    }
}
