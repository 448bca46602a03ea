package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.WeightsProtocol.SourceCommand;
import dev.agentswarm.core.protocol.WeightsProtocol.WeightsNotice;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Putting a version's chunks back together: only the whole, checked bytes come out. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WeightsAssemblyTest {

    private final ActorTestKit kit = ActorTestKit.create("assembly");
    private final byte[] bytes = randomBytes(2500);
    private final WeightsNotice notice = WeightsNotice.of(3, bytes, 1000, kit.<SourceCommand>createTestProbe().getRef());

    static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void chunksInAnyOrderMakeTheVerifiedWhole() {
        assertEquals(3, notice.chunkCount());
        assertEquals(500, notice.chunkLength(2), "the last chunk is the rest");
        WeightsAssembly a = new WeightsAssembly(notice);
        assertTrue(a.add(3, 2, notice.slice(bytes, 2)));
        assertTrue(a.add(3, 0, notice.slice(bytes, 0)));
        assertFalse(a.add(3, 0, notice.slice(bytes, 0)), "a chunk answered twice (a retried request) is taken once");
        assertFalse(a.complete());
        assertTrue(a.add(3, 1, notice.slice(bytes, 1)));
        assertTrue(a.complete());
        assertArrayEquals(bytes, a.verified());
    }

    @Test
    void aMissingChunkIsNamedAndNothingIsHandedOut() {
        WeightsAssembly a = new WeightsAssembly(notice);
        a.add(3, 0, notice.slice(bytes, 0));
        a.add(3, 2, notice.slice(bytes, 2));
        IllegalStateException e = assertThrows(IllegalStateException.class, a::verified);
        assertTrue(e.getMessage().contains("chunk 1 of 3 is missing"), e.getMessage());
    }

    @Test
    void chunksThatDoNotBelongAreRefusedAndChangeNothing() {
        WeightsAssembly a = new WeightsAssembly(notice);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> a.add(4, 0, notice.slice(bytes, 0))).getMessage()
                .contains("version 4 does not belong to version 3"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> a.add(3, 3, new byte[500])).getMessage()
                .contains("chunk 3 is not one of version 3's 3 chunks"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> a.add(3, 1, new byte[999])).getMessage()
                .contains("has 999 bytes, not 1000"));
        assertEquals(0, a.receivedCount());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WeightsAssembly(WeightsNotice.withoutChecksums(3, 2500, 1000,
                notice.source()))).getMessage().contains("without checksums"), "nothing to check chunks against");
    }

    @Test
    void aChunkThatDoesNotMatchItsChecksumIsRefusedAndTheGoodOneTakenAfter() {
        WeightsAssembly a = new WeightsAssembly(notice);
        byte[] wrong = notice.slice(bytes, 1);
        wrong[17] ^= 1;
        a.add(3, 0, notice.slice(bytes, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.add(3, 1, wrong));
        assertTrue(e.getMessage().contains("chunk 1 of version 3 does not match its CRC32C"), e.getMessage());
        assertFalse(a.has(1), "nothing of a refused chunk is kept");
        a.add(3, 2, notice.slice(bytes, 2));
        assertFalse(a.complete());
        assertThrows(IllegalStateException.class, a::verified);
        assertTrue(a.add(3, 1, notice.slice(bytes, 1)), "asked again, the right chunk is taken");
        assertArrayEquals(bytes, a.verified());
    }

    @Test
    void theNoticeCarriesTheCrc32cOfEachChunk() {
        assertEquals(3, notice.checksums().length);
        for (int i = 0; i < 3; i++) {
            CRC32C crc = new CRC32C();
            crc.update(notice.slice(bytes, i));
            assertEquals((int) crc.getValue(), notice.checksums()[i]);
            assertTrue(notice.matches(i, notice.slice(bytes, i)));
        }
        assertFalse(notice.matches(0, notice.slice(bytes, 1)), "another chunk's bytes");
        assertFalse(notice.matches(2, new byte[499]), "too short");
    }
}
