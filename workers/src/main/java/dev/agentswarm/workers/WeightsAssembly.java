package dev.agentswarm.workers;

import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.core.protocol.WeightsProtocol.WeightsNotice;
import java.security.MessageDigest;
import java.util.BitSet;
import java.util.HexFormat;

/**
 * The bytes of one announced version, put back together from its chunks in any order. A chunk of
 * another version, out of range or of the wrong length is refused; the whole is handed out only
 * when every chunk is in and the size and SHA-256 match the notice ({@link #verified}), so nothing
 * half-fetched can be loaded. The hash is taken as the chunks come (over the in-order prefix), so
 * verifying a large model costs little after the last chunk.
 */
public final class WeightsAssembly {

    private final WeightsNotice notice;
    private final byte[] bytes;
    private final BitSet received;
    private final MessageDigest digest = WeightsProtocol.newSha256();
    private int hashed; // chunks [0, hashed) are in the digest
    private byte[] verified;

    public WeightsAssembly(WeightsNotice notice) {
        if (notice.totalBytes() > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("weights version " + notice.version() + " are " + notice.totalBytes()
                    + " bytes: more than one Java array holds");
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
     * retried request answered twice); throws, taking nothing, for one that does not belong.
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
        System.arraycopy(chunk, 0, bytes, (int) notice.offset(index), chunk.length);
        received.set(index);
        while (hashed < notice.chunkCount() && received.get(hashed)) {
            digest.update(bytes, (int) notice.offset(hashed), notice.chunkLength(hashed));
            hashed++;
        }
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
     * The whole version's bytes, once every chunk is in and their SHA-256 is the notice's; throws
     * {@link IllegalStateException} naming what is missing or wrong otherwise.
     */
    public byte[] verified() {
        if (verified != null) return verified;
        if (!complete()) {
            throw new IllegalStateException("weights version " + notice.version() + " are incomplete: chunk "
                    + received.nextClearBit(0) + " of " + notice.chunkCount() + " is missing");
        }
        String sha = HexFormat.of().formatHex(digest.digest());
        if (!sha.equals(notice.sha256())) {
            throw new IllegalStateException("weights version " + notice.version() + " do not match their notice: SHA-256 " + sha
                    + ", announced " + notice.sha256());
        }
        verified = bytes;
        return verified;
    }
}
