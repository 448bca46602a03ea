package dev.agentswarm.workers;

import dev.agentswarm.core.protocol.WeightsProtocol.WeightsNotice;
import java.util.BitSet;

/**
 * The bytes of one announced version, put back together from its chunks in any order. Each chunk is
 * checked as it comes: one of another version, out of range, of the wrong length or whose CRC32C is
 * not the notice's is refused and nothing of it is kept, so the caller asks for that chunk again. The
 * whole is handed out only when every chunk is in and the size is the notice's ({@link #verified}),
 * so nothing half-fetched can be loaded.
 */
public final class WeightsAssembly {

    private final WeightsNotice notice;
    private final byte[] bytes;
    private final BitSet received;
    private long receivedBytes;

    public WeightsAssembly(WeightsNotice notice) {
        if (notice.totalBytes() > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("weights version " + notice.version() + " are " + notice.totalBytes()
                    + " bytes: more than one Java array holds");
        }
        if (!notice.hasChecksums()) {
            throw new IllegalArgumentException("weights version " + notice.version() + " were announced without checksums: ask the source for them");
        }
        this.notice = notice;
        this.bytes = new byte[(int) notice.totalBytes()];
        this.received = new BitSet(notice.chunkCount());
    }

    public WeightsNotice notice() {
        return notice;
    }

    /**
     * Takes chunk {@code index} of {@code version}. Returns false for a chunk already taken (a
     * retried request answered twice); throws, taking nothing, for one that does not belong or does
     * not match its checksum.
     */
    public boolean add(long version, int index, byte[] chunk) {
        if (version != notice.version()) {
            throw new IllegalArgumentException("a chunk of version " + version + " does not belong to version " + notice.version());
        }
        if (index < 0 || index >= notice.chunkCount()) {
            throw new IllegalArgumentException("chunk " + index + " is not one of version " + version + "'s " + notice.chunkCount() + " chunks");
        }
        if (chunk == null || chunk.length != notice.chunkLength(index)) {
            throw new IllegalArgumentException("chunk " + index + " of version " + version + " has " + (chunk == null ? 0 : chunk.length)
                    + " bytes, not " + notice.chunkLength(index));
        }
        if (received.get(index)) return false;
        if (!notice.matches(index, chunk)) {
            throw new IllegalArgumentException("chunk " + index + " of version " + version + " does not match its CRC32C in the notice");
        }
        System.arraycopy(chunk, 0, bytes, (int) notice.offset(index), chunk.length);
        received.set(index);
        receivedBytes += chunk.length;
        return true;
    }

    public boolean has(int index) {
        return received.get(index);
    }

    public int receivedCount() {
        return received.cardinality();
    }

    public boolean complete() {
        return receivedCount() == notice.chunkCount();
    }

    /**
     * The whole version's bytes, once every chunk is in (each checked on arrival) and they add up
     * to the notice's size; throws {@link IllegalStateException} naming what is missing or wrong otherwise.
     */
    public byte[] verified() {
        if (!complete()) {
            throw new IllegalStateException("weights version " + notice.version() + " are incomplete: chunk "
                    + received.nextClearBit(0) + " of " + notice.chunkCount() + " is missing");
        }
        if (receivedBytes != notice.totalBytes() || bytes.length != notice.totalBytes()) {
            throw new IllegalStateException("weights version " + notice.version() + " are " + receivedBytes + " bytes, announced "
                    + notice.totalBytes());
        }
        return bytes;
    }
}
