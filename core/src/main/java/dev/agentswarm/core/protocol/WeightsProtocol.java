package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * How new policy weights reach every node, by pull. The learner's node holds the bytes in a weights
 * source and announces each version with a small {@link WeightsNotice} on the {@link #TOPIC} topic;
 * each node's fetcher pulls the bytes from the source named in the notice, chunk by chunk
 * ({@link FetchChunk} → {@link WeightsChunk}), so no message is larger than one chunk whatever the
 * model's size. A node that joins late or missed a notice finds the source through the
 * Receptionist ({@link #SOURCE_KEY}) and asks it for the newest ({@link GetLatest} → {@link Latest}).
 * Here, in core, so the learner and the workers never import each other.
 */
public final class WeightsProtocol {

    private WeightsProtocol() {}

    /** The pub-sub topic the notices travel on (the bytes never do). */
    public static final String TOPIC = "policy-weights";

    /** Under which a weights source registers with the Receptionist, for nodes to find it. */
    public static final ServiceKey<SourceCommand> SOURCE_KEY = ServiceKey.create(SourceCommand.class, "policy-weights-source");

    /** What a weights source answers. */
    public interface SourceCommand extends CborSerializable {}

    /** What a weights source sends back (and the topic delivers): a fetcher's mailbox takes these. */
    public interface FetcherCommand extends CborSerializable {}

    /**
     * Version {@code version} of the weights is held by {@code source}: {@code totalBytes} bytes in
     * {@code chunkCount} chunks of {@code chunkSize} (the last one shorter), whose SHA-256 is
     * {@code sha256} (lower-case hex).
     */
    public record WeightsNotice(long version, long totalBytes, int chunkSize, int chunkCount, String sha256,
                                ActorRef<SourceCommand> source) implements FetcherCommand {

        public WeightsNotice {
            if (version < 1) throw new IllegalArgumentException("published weights have a version >= 1, got " + version);
            if (totalBytes < 1) throw new IllegalArgumentException("published weights carry bytes, got " + totalBytes);
            if (chunkSize < 1) throw new IllegalArgumentException("chunk size must be positive, got " + chunkSize);
            if (chunkCount != chunksOf(totalBytes, chunkSize)) {
                throw new IllegalArgumentException(totalBytes + " bytes in chunks of " + chunkSize + " are " + chunksOf(totalBytes, chunkSize)
                        + " chunks, not " + chunkCount);
            }
            if (sha256 == null || sha256.length() != 64) throw new IllegalArgumentException("sha256 is 64 hex digits, got " + sha256);
            if (source == null) throw new IllegalArgumentException("a notice names the source to pull from");
        }

        /** The notice of {@code bytes} as version {@code version} held by {@code source}, with its SHA-256. */
        public static WeightsNotice of(long version, byte[] bytes, int chunkSize, ActorRef<SourceCommand> source) {
            return new WeightsNotice(version, bytes.length, chunkSize, chunksOf(bytes.length, chunkSize), sha256Hex(bytes),
                    source);
        }

        /** Where chunk {@code index} starts in the bytes. */
        public long offset(int index) {
            checkIndex(index);
            return (long) index * chunkSize;
        }

        /** How many bytes chunk {@code index} has: {@code chunkSize}, but for the last one. */
        public int chunkLength(int index) {
            return (int) Math.min(chunkSize, totalBytes - offset(index));
        }

        /** Chunk {@code index} of {@code bytes} (the bytes this notice describes), copied. */
        public byte[] slice(byte[] bytes, int index) {
            if (bytes.length != totalBytes) throw new IllegalArgumentException("the notice is of " + totalBytes + " bytes, not " + bytes.length);
            int from = (int) offset(index);
            return Arrays.copyOfRange(bytes, from, from + chunkLength(index));
        }

        private void checkIndex(int index) {
            if (index < 0 || index >= chunkCount) {
                throw new IllegalArgumentException("chunk " + index + " is not one of version " + version + "'s " + chunkCount + " chunks");
            }
        }

        private static int chunksOf(long totalBytes, int chunkSize) {
            long n = (totalBytes + chunkSize - 1) / chunkSize;
            if (n > Integer.MAX_VALUE) throw new IllegalArgumentException(totalBytes + " bytes are too many chunks of " + chunkSize);
            return (int) n;
        }
    }

    /** Send me the newest notice you hold ({@link Latest}). */
    public record GetLatest(ActorRef<FetcherCommand> replyTo) implements SourceCommand {}

    /** The newest version a source holds; {@code notice} is null when it has published none yet. */
    public record Latest(WeightsNotice notice) implements FetcherCommand {}

    /** Send me chunk {@code index} of version {@code version} ({@link WeightsChunk} or {@link ChunkUnavailable}). */
    public record FetchChunk(long version, int index, ActorRef<FetcherCommand> replyTo) implements SourceCommand {}

    /** Chunk {@code index} of version {@code version}: the bytes from {@code index * chunkSize} on. */
    public record WeightsChunk(long version, int index, byte[] bytes) implements FetcherCommand {}

    /**
     * The source no longer holds {@code version} (or it has no such chunk); {@code newest} is what
     * it holds now, null when nothing.
     */
    public record ChunkUnavailable(long version, int index, WeightsNotice newest) implements FetcherCommand {}

    /** SHA-256 of {@code bytes}, lower-case hex. */
    public static String sha256Hex(byte[] bytes) {
        return HexFormat.of().formatHex(newSha256().digest(bytes));
    }

    /** A fresh SHA-256 digest (every Java runtime has one). */
    public static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java runtime has no SHA-256", e);
        }
    }
}
