package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The node's weights fetcher against a scripted source and server (probes): a bounded window of
 * chunk requests, late or corrupted chunks asked again, a newer version taking over, the whole
 * version at once from a source in the same JVM, and only whole, checked, loaded versions counted
 * as served. Every message goes through CBOR ({@code serialize-messages}). The probes are local, so
 * the tests of the chunked path turn the same-JVM shortcut off.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WeightsFetcherTest {

    private static final WeightsSettings SETTINGS = new WeightsSettings(1000, 3, Duration.ofMillis(300), 2, Duration.ofHours(1));
    private static final Duration QUIET = Duration.ofMillis(200);

    private final ActorTestKit kit = ActorTestKit.create("fetcher",
            ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(ConfigFactory.load()));
    private int fetchers;

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    private ActorRef<FetcherCommand> fetcher(TestProbe<PolicyServer.Command> server, long maxChunkBytes) {
        return kit.spawn(WeightsFetcher.create(server.getRef(), 0, SETTINGS, maxChunkBytes, ref -> false), "fetcher-" + ++fetchers);
    }

    private static WeightsNotice notice(long version, byte[] bytes, TestProbe<SourceCommand> source) {
        return WeightsNotice.of(version, bytes, 1000, source.getRef());
    }

    private static void answer(FetchChunk f, WeightsNotice n, byte[] bytes) {
        f.replyTo().tell(new WeightsChunk(f.version(), f.index(), f.nonce(), n.slice(bytes, f.index())));
    }

    /** The next chunk request, past any ask for the latest version (sent again when the listing changes). */
    private static FetchChunk nextFetch(TestProbe<SourceCommand> source) {
        while (true) {
            SourceCommand m = source.receiveMessage(Duration.ofSeconds(3));
            if (m instanceof FetchChunk f) return f;
        }
    }

    private WeightsFetcher.Serving serving(ActorRef<FetcherCommand> fetcher) {
        TestProbe<WeightsFetcher.Serving> p = kit.createTestProbe();
        fetcher.tell(new WeightsFetcher.GetServing(p.getRef()));
        return p.receiveMessage();
    }

    @Test
    void pullsEveryChunkWithABoundedWindowAndServesTheWholeOnlyOnceLoaded() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = fetcher(server, Long.MAX_VALUE);
        byte[] bytes = WeightsAssemblyTest.randomBytes(9500);
        WeightsNotice n = notice(1, bytes, source);
        TestProbe<WeightsFetcher.Serving> waiting = kit.createTestProbe();
        fetcher.tell(new WeightsFetcher.AwaitVersion(1, waiting.getRef()));
        fetcher.tell(n);

        Deque<FetchChunk> pending = new ArrayDeque<>();
        for (int i = 0; i < 3; i++) pending.add(source.expectMessageClass(FetchChunk.class));
        source.expectNoMessage(QUIET); // the window is full
        Set<Integer> asked = new HashSet<>();
        while (!pending.isEmpty()) {
            FetchChunk f = pending.pollLast(); // out of order
            assertEquals(1, f.version());
            assertTrue(asked.add(f.index()), "chunk " + f.index() + " asked once");
            answer(f, n, bytes);
            if (asked.size() + pending.size() < 10) pending.add(source.expectMessageClass(FetchChunk.class));
        }
        assertEquals(10, asked.size());
        PolicyServer.LoadWeights load = server.expectMessageClass(PolicyServer.LoadWeights.class);
        assertArrayEquals(bytes, load.safetensors());
        waiting.expectNoMessage(QUIET); // fetched is not served: the server has not loaded it yet
        assertEquals(new WeightsFetcher.Serving(0, 1), serving(fetcher));
        load.replyTo().tell(new PolicyServer.WeightsLoaded(1, null));
        assertEquals(new WeightsFetcher.Serving(1, 1), waiting.receiveMessage());

        fetcher.tell(n); // an old notice again: nothing to do
        source.expectNoMessage(QUIET);
    }

    @Test
    void aLateChunkIsAskedAgainAndAVersionTheServerRefusesIsNotServed() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = fetcher(server, Long.MAX_VALUE);
        byte[] bytes = WeightsAssemblyTest.randomBytes(2500);
        WeightsNotice n = notice(1, bytes, source);
        fetcher.tell(n);
        FetchChunk lost = source.expectMessageClass(FetchChunk.class);
        answer(source.expectMessageClass(FetchChunk.class), n, bytes);
        answer(source.expectMessageClass(FetchChunk.class), n, bytes);
        FetchChunk again = source.expectMessageClass(FetchChunk.class, Duration.ofSeconds(3));
        assertEquals(lost.index(), again.index(), "the unanswered chunk is asked again after chunk-timeout");
        answer(again, n, bytes);
        answer(lost, n, bytes); // the first request's late answer is a duplicate, taken once
        PolicyServer.LoadWeights load = server.expectMessageClass(PolicyServer.LoadWeights.class);
        server.expectNoMessage(QUIET);
        load.replyTo().tell(new PolicyServer.WeightsLoaded(0, "shape mismatch"));
        assertEquals(new WeightsFetcher.Serving(0, 1), serving(fetcher), "a refused version is not served");
        fetcher.tell(n);
        source.expectNoMessage(QUIET); // and not fetched again
    }

    @Test
    void aNewerVersionAnnouncedMidFetchTakesOver() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = fetcher(server, Long.MAX_VALUE);
        byte[] b1 = WeightsAssemblyTest.randomBytes(2500);
        byte[] b2 = WeightsAssemblyTest.randomBytes(2600);
        byte[] b4 = WeightsAssemblyTest.randomBytes(2700);
        WeightsNotice n1 = notice(1, b1, source);
        WeightsNotice n2 = notice(2, b2, source);
        fetcher.tell(n1);
        FetchChunk old = source.expectMessageClass(FetchChunk.class);
        source.expectMessageClass(FetchChunk.class);
        source.expectMessageClass(FetchChunk.class);
        fetcher.tell(n2);
        for (int i = 0; i < 3; i++) {
            FetchChunk f = source.expectMessageClass(FetchChunk.class);
            assertEquals(2, f.version());
            answer(f, n2, b2);
        }
        answer(old, n1, b1); // a late chunk of the abandoned version is ignored
        PolicyServer.LoadWeights load = server.expectMessageClass(PolicyServer.LoadWeights.class);
        assertArrayEquals(b2, load.safetensors());
        load.replyTo().tell(new PolicyServer.WeightsLoaded(2, null));

        // A source that no longer holds the version being fetched names its newest: fetched instead.
        WeightsNotice n3 = notice(3, b1, source);
        WeightsNotice n4 = notice(4, b4, source);
        fetcher.tell(n3);
        FetchChunk f3 = source.expectMessageClass(FetchChunk.class);
        f3.replyTo().tell(new ChunkUnavailable(3, f3.index(), f3.nonce(), n4));
        source.expectMessageClass(FetchChunk.class);
        source.expectMessageClass(FetchChunk.class); // the rest of version 3's window, sent before the refusal came
        for (int i = 0; i < 3; i++) {
            FetchChunk f = source.expectMessageClass(FetchChunk.class);
            assertEquals(4, f.version());
            answer(f, n4, b4);
        }
        load = server.expectMessageClass(PolicyServer.LoadWeights.class);
        assertArrayEquals(b4, load.safetensors());
        load.replyTo().tell(new PolicyServer.WeightsLoaded(4, null));
        assertEquals(new WeightsFetcher.Serving(4, 4), serving(fetcher));
    }

    @Test
    void aNoticeWithoutChecksumsFromAnotherNodeIsPulledOnlyOnceTheSourceGaveThem() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = fetcher(server, Long.MAX_VALUE);
        byte[] bytes = WeightsAssemblyTest.randomBytes(2500);
        WeightsNotice checked = notice(1, bytes, source);
        fetcher.tell(WeightsNotice.withoutChecksums(1, bytes.length, 1000, source.getRef()));
        GetLatest ask = source.expectMessageClass(GetLatest.class);
        source.expectNoMessage(QUIET); // no chunk it could not check
        ask.replyTo().tell(new Latest(checked));
        for (int i = 0; i < 3; i++) answer(source.expectMessageClass(FetchChunk.class), checked, bytes);
        assertArrayEquals(bytes, server.expectMessageClass(PolicyServer.LoadWeights.class).safetensors());
    }

    @Test
    void aCorruptedChunkIsAskedAgainAloneAndTheVersionLoadsWhenItComesRight() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = fetcher(server, Long.MAX_VALUE);
        byte[] bytes = WeightsAssemblyTest.randomBytes(2500);
        WeightsNotice n = notice(1, bytes, source);
        fetcher.tell(n);
        LoggingTestKit.warn("chunk 1 of version 1 does not match its CRC32C").expect(kit.system(), () -> {
            for (int i = 0; i < 3; i++) {
                FetchChunk f = source.expectMessageClass(FetchChunk.class);
                byte[] chunk = n.slice(bytes, f.index());
                if (f.index() == 1) chunk[0] ^= 1;
                f.replyTo().tell(new WeightsChunk(1, f.index(), f.nonce(), chunk));
            }
            return null;
        });
        FetchChunk again = source.expectMessageClass(FetchChunk.class);
        assertEquals(1, again.index(), "only the bad chunk is asked again");
        server.expectNoMessage(QUIET); // nothing is loaded with a chunk missing
        answer(again, n, bytes);
        assertArrayEquals(bytes, server.expectMessageClass(PolicyServer.LoadWeights.class).safetensors());
        source.expectNoMessage(QUIET);
    }

    @Test
    void aChunkThatStaysCorruptedGetsTheVersionRefusedAndNeverLoaded() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = fetcher(server, Long.MAX_VALUE);
        byte[] bytes = WeightsAssemblyTest.randomBytes(2500);
        WeightsNotice n = notice(1, bytes, source);
        fetcher.tell(n);
        LoggingTestKit.error("refused fetched weights version 1: chunk 1 was wrong 3 times").expect(kit.system(), () -> {
            int bad = 0;
            while (bad < 1 + SETTINGS.maxRetries()) {
                FetchChunk f = source.expectMessageClass(FetchChunk.class);
                byte[] chunk = n.slice(bytes, f.index());
                if (f.index() == 1) {
                    chunk[0] ^= 1;
                    bad++;
                }
                f.replyTo().tell(new WeightsChunk(1, f.index(), f.nonce(), chunk));
            }
            return null;
        });
        server.expectNoMessage(QUIET);
        assertEquals(0, serving(fetcher).version());
        fetcher.tell(n);
        source.expectNoMessage(QUIET); // not fetched again
    }

    @Test
    void aSourceInTheSameJvmHandsOverTheWholeVersionInOneMessage() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        // A frame too small for any chunk: nothing crosses a frame within one JVM.
        ActorRef<FetcherCommand> fetcher = kit.spawn(WeightsFetcher.create(server.getRef(), 0, SETTINGS, 1), "fetcher-local");
        byte[] bytes = WeightsAssemblyTest.randomBytes(2500);
        fetcher.tell(WeightsNotice.withoutChecksums(1, bytes.length, 1000, source.getRef())); // none needed within one JVM
        FetchWhole whole = source.expectMessageClass(FetchWhole.class);
        assertEquals(1, whole.version());
        source.expectNoMessage(QUIET); // no chunk requests
        whole.replyTo().tell(new WholeWeights(1, whole.nonce(), bytes));
        PolicyServer.LoadWeights load = server.expectMessageClass(PolicyServer.LoadWeights.class);
        assertArrayEquals(bytes, load.safetensors());
        load.replyTo().tell(new PolicyServer.WeightsLoaded(1, null));
        assertEquals(new WeightsFetcher.Serving(1, 1), serving(fetcher));

        // Whole weights of another size than announced are refused, and the version is not asked for again.
        WeightsNotice n2 = notice(2, WeightsAssemblyTest.randomBytes(2600), source);
        fetcher.tell(n2);
        FetchWhole second = source.expectMessageClass(FetchWhole.class);
        LoggingTestKit.error("refused fetched weights version 2: they are 2500 bytes, announced 2600").expect(kit.system(), () -> {
            second.replyTo().tell(new WholeWeights(2, second.nonce(), bytes));
            return null;
        });
        server.expectNoMessage(QUIET);
        assertEquals(1, serving(fetcher).version());
        fetcher.tell(n2);
        source.expectNoMessage(QUIET);

        // A source that no longer holds the version names its newest, fetched instead.
        byte[] b4 = WeightsAssemblyTest.randomBytes(2700);
        WeightsNotice n4 = notice(4, b4, source);
        fetcher.tell(notice(3, bytes, source));
        FetchWhole third = source.expectMessageClass(FetchWhole.class);
        third.replyTo().tell(new ChunkUnavailable(3, WeightsProtocol.WHOLE, third.nonce(), n4));
        FetchWhole fourth = source.expectMessageClass(FetchWhole.class);
        assertEquals(4, fourth.version());
        fourth.replyTo().tell(new WholeWeights(4, fourth.nonce(), b4));
        assertArrayEquals(b4, server.expectMessageClass(PolicyServer.LoadWeights.class).safetensors());
    }

    @Test
    void chunksLargerThanThisNodesFrameAreRefusedLoudly() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = fetcher(server, 999);
        LoggingTestKit.error("do not fit in this node's large frame").expect(kit.system(), () -> {
            fetcher.tell(notice(1, WeightsAssemblyTest.randomBytes(2500), source));
            return null;
        });
        source.expectNoMessage(QUIET);
    }

    @Test
    void aNoticeWhoseSourceIsNotALearnersIsIgnoredAndChangesNothing() {
        TestProbe<SourceCommand> learner = kit.createTestProbe();
        TestProbe<SourceCommand> worker = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = kit.spawn(WeightsFetcher.create(server.getRef(), 0, SETTINGS, Long.MAX_VALUE, ref -> false,
                new WeightsAcceptance(ref -> ref.equals(learner.getRef()), Long.MAX_VALUE)), "fetcher-" + ++fetchers);
        byte[] bytes = WeightsAssemblyTest.randomBytes(1500);
        LoggingTestKit.warn("not an actor of a cluster member with the learner role").expect(kit.system(), () -> {
            fetcher.tell(notice(9, bytes, worker));
            return null;
        });
        fetcher.tell(new Latest(notice(9, bytes, worker))); // nor as a source's answer
        worker.expectNoMessage(QUIET);
        server.expectNoMessage(QUIET);
        assertEquals(new WeightsFetcher.Serving(0, 0), serving(fetcher), "not even counted as the newest known");
        // The learner's own notice of a lower version is fetched as ever.
        WeightsNotice n = notice(2, bytes, learner);
        fetcher.tell(n);
        for (int i = 0; i < 2; i++) answer(nextFetch(learner), n, bytes);
        assertArrayEquals(bytes, server.expectMessageClass(PolicyServer.LoadWeights.class).safetensors());
    }

    @Test
    void aNoticeLargerThanTheModelImpliesIsRefusedBeforeAnythingIsAllocated() {
        TestProbe<SourceCommand> learner = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = kit.spawn(WeightsFetcher.create(server.getRef(), 0, SETTINGS, Long.MAX_VALUE, ref -> false,
                new WeightsAcceptance(ref -> true, 2000)), "fetcher-" + ++fetchers);
        // 2 GiB announced by a source that never sends a byte: refused from the notice alone.
        WeightsNotice huge = new WeightsNotice(7, Integer.MAX_VALUE - 16L, 4 << 20, 512, new int[512], learner.getRef());
        LoggingTestKit.warn("more than the 2000 bytes this node's model implies").expect(kit.system(), () -> {
            fetcher.tell(huge);
            return null;
        });
        learner.expectNoMessage(QUIET);
        assertEquals(new WeightsFetcher.Serving(0, 0), serving(fetcher));
        byte[] fits = WeightsAssemblyTest.randomBytes(2000);
        WeightsNotice n = notice(3, fits, learner);
        fetcher.tell(n);
        for (int i = 0; i < 2; i++) answer(nextFetch(learner), n, fits);
        assertArrayEquals(fits, server.expectMessageClass(PolicyServer.LoadWeights.class).safetensors());
    }

    @Test
    void aChunkForgedToMatchItsCrcIsNotTakenWithoutTheRequestsNonce() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        ActorRef<FetcherCommand> fetcher = fetcher(server, Long.MAX_VALUE);
        byte[] bytes = WeightsAssemblyTest.randomBytes(1500);
        WeightsNotice n = notice(1, bytes, source);
        fetcher.tell(n);
        FetchChunk first = nextFetch(source);
        byte[] forged = sameCrc32c(n.slice(bytes, first.index()));
        assertTrue(n.matches(first.index(), forged), "CRC32C alone does not tell the forgery");
        // Another member knows the version and the index (the notice is public), not the nonce.
        fetcher.tell(new WeightsChunk(1, first.index(), first.nonce() + 1, forged));
        answer(first, n, bytes);
        answer(nextFetch(source), n, bytes);
        assertArrayEquals(bytes, server.expectMessageClass(PolicyServer.LoadWeights.class).safetensors(), "only the source's bytes");
    }

    /**
     * {@code chunk} with its first byte changed and its last four set so that its CRC32C is unchanged:
     * CRC is linear over GF(2), so the last 32 bits are solved for, as any member could.
     */
    static byte[] sameCrc32c(byte[] chunk) {
        int target = WeightsProtocol.crc32c(chunk, 0, chunk.length);
        byte[] x = chunk.clone();
        x[0] ^= (byte) 0xA5;
        int end = x.length - 4;
        java.util.Arrays.fill(x, end, x.length, (byte) 0);
        int base = WeightsProtocol.crc32c(x, 0, x.length);
        int[] column = new int[32]; // what flipping bit j of the last four bytes does to the CRC
        for (int j = 0; j < 32; j++) {
            x[end + j / 8] ^= (byte) (1 << (j % 8));
            column[j] = WeightsProtocol.crc32c(x, 0, x.length) ^ base;
            x[end + j / 8] ^= (byte) (1 << (j % 8));
        }
        // Gaussian elimination: rows are CRC bits, each with the unknown bits (a 32-bit mask) and the wanted value.
        int[] rows = new int[32];
        int want = target ^ base;
        int[] rhs = new int[32];
        for (int r = 0; r < 32; r++) {
            for (int j = 0; j < 32; j++) if ((column[j] >>> r & 1) != 0) rows[r] |= 1 << j;
            rhs[r] = want >>> r & 1;
        }
        int[] pivotRow = new int[32];
        int rank = 0;
        for (int j = 0; j < 32 && rank < 32; j++) {
            int p = -1;
            for (int r = rank; r < 32; r++) if ((rows[r] >>> j & 1) != 0) { p = r; break; }
            if (p < 0) throw new IllegalStateException("singular");
            int t = rows[p]; rows[p] = rows[rank]; rows[rank] = t;
            t = rhs[p]; rhs[p] = rhs[rank]; rhs[rank] = t;
            for (int r = 0; r < 32; r++) {
                if (r != rank && (rows[r] >>> j & 1) != 0) { rows[r] ^= rows[rank]; rhs[r] ^= rhs[rank]; }
            }
            pivotRow[j] = rank++;
        }
        for (int j = 0; j < 32; j++) if (rhs[pivotRow[j]] != 0) x[end + j / 8] ^= (byte) (1 << (j % 8));
        return x;
    }

    @Test
    void aFetcherThatStartsAfterThePublicationAsksTheSourceItFindsAndCatchesUp() {
        TestProbe<SourceCommand> source = kit.createTestProbe();
        TestProbe<PolicyServer.Command> server = kit.createTestProbe();
        kit.system().receptionist().tell(Receptionist.register(WeightsProtocol.SOURCE_KEY, source.getRef()));
        try {
            byte[] bytes = WeightsAssemblyTest.randomBytes(1800);
            WeightsNotice n = notice(5, bytes, source);
            ActorRef<FetcherCommand> fetcher = fetcher(server, Long.MAX_VALUE);
            TestProbe<WeightsFetcher.Serving> current = kit.createTestProbe();
            fetcher.tell(new WeightsFetcher.AwaitCurrent(current.getRef()));
            // Every fetcher of this test kit sees the source appear and asks it: this test's one is answered.
            GetLatest ask;
            do {
                ask = source.expectMessageClass(GetLatest.class);
            } while (!ask.replyTo().equals(fetcher));
            current.expectNoMessage(QUIET); // nothing heard from a source yet
            ask.replyTo().tell(new Latest(n));
            for (int i = 0; i < 2; i++) answer(nextFetch(source), n, bytes);
            PolicyServer.LoadWeights load = server.expectMessageClass(PolicyServer.LoadWeights.class);
            current.expectNoMessage(QUIET);
            load.replyTo().tell(new PolicyServer.WeightsLoaded(5, null));
            assertEquals(new WeightsFetcher.Serving(5, 5), current.receiveMessage());

            // A source that has published nothing yet: the node is current with what it has.
            ActorRef<FetcherCommand> other = kit.spawn(WeightsFetcher.create(server.getRef(), 0, SETTINGS, Long.MAX_VALUE), "fetcher-empty");
            other.tell(new Latest(null));
            TestProbe<WeightsFetcher.Serving> now = kit.createTestProbe();
            other.tell(new WeightsFetcher.AwaitCurrent(now.getRef()));
            assertEquals(0, now.receiveMessage().version());
        } finally {
            kit.system().receptionist().tell(Receptionist.deregister(WeightsProtocol.SOURCE_KEY, source.getRef()));
        }
    }
}
