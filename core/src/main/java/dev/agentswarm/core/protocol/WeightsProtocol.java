package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * How new policy weights reach every node, by pull. The learner's node holds the bytes in a weights
 * source and announces each version with a small {@link WeightsNotice} on the {@link #TOPIC} topic;
 * each node's fetcher pulls the bytes from the source named in the notice, chunk by chunk
 * ({@link FetchChunk} → {@link WeightsChunk}), so no message is larger than one chunk whatever the
 * model's size. A node that joins late or missed a notice finds the source through the
 * Receptionist ({@link #SOURCE_KEY}) and asks it for the newest ({@link GetLatest} → {@link Latest}).
 * A fetcher in the source's own actor system asks for the whole version at once instead
 * ({@link FetchWhole} → {@link WholeWeights}): the bytes never leave the JVM, so they go by reference.
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
     * {@code chunkCount} chunks of {@code chunkSize} (the last one shorter), chunk {@code i} having
     * the CRC32C {@code checksums[i]}. Per-chunk checksums rather than one hash of the whole: a chunk
     * is checked as it arrives and only a bad one is asked again, and CRC32C is a CPU instruction
     * (tens of GB/s, where SHA-256 is about 1 GB/s).
     *
     * <p>{@code checksums} is null while no fetcher on another node has asked the source anything:
     * a fetcher in the source's JVM takes the bytes whole and needs none, so a single node never
     * computes them. A fetcher on another node that hears such a notice asks the source for its
     * newest ({@link GetLatest}), which comes with them.
     */
    public record WeightsNotice(long version, long totalBytes, int chunkSize, int chunkCount, int[] checksums,
                                ActorRef<SourceCommand> source) implements FetcherCommand {

        public WeightsNotice {
            if (version < 1) throw new IllegalArgumentException("published weights have a version >= 1, got " + version);
            if (totalBytes < 1) throw new IllegalArgumentException("published weights carry bytes, got " + totalBytes);
            if (chunkSize < 1) throw new IllegalArgumentException("chunk size must be positive, got " + chunkSize);
            if (chunkCount != chunksOf(totalBytes, chunkSize)) {
                throw new IllegalArgumentException(totalBytes + " bytes in chunks of " + chunkSize + " are " + chunksOf(totalBytes, chunkSize)
                        + " chunks, not " + chunkCount);
            }
            if (checksums != null && checksums.length != chunkCount) {
                throw new IllegalArgumentException("a notice of " + chunkCount + " chunks carries as many checksums, got " + checksums.length);
            }
            if (source == null) throw new IllegalArgumentException("a notice names the source to pull from");
            if (checksums != null) checksums = checksums.clone();
        }

        /** The notice of {@code totalBytes} bytes as version {@code version} held by {@code source}, without checksums. */
        public static WeightsNotice withoutChecksums(long version, long totalBytes, int chunkSize, ActorRef<SourceCommand> source) {
            return new WeightsNotice(version, totalBytes, chunkSize, chunksOf(totalBytes, chunkSize), null, source);
        }

        /** The notice of {@code bytes} as version {@code version} held by {@code source}, with the CRC32C of each chunk. */
        public static WeightsNotice of(long version, byte[] bytes, int chunkSize, ActorRef<SourceCommand> source) {
            return withoutChecksums(version, bytes.length, chunkSize, source).withChecksums(bytes);
        }

        /** This notice with the CRC32C of each chunk of {@code bytes} (the bytes it describes). */
        public WeightsNotice withChecksums(byte[] bytes) {
            if (bytes.length != totalBytes) throw new IllegalArgumentException("the notice is of " + totalBytes + " bytes, not " + bytes.length);
            int[] crcs = new int[chunkCount];
            for (int i = 0; i < chunkCount; i++) crcs[i] = crc32c(bytes, (int) offset(i), chunkLength(i));
            return new WeightsNotice(version, totalBytes, chunkSize, chunkCount, crcs, source);
        }

        public boolean hasChecksums() {
            return checksums != null;
        }

        /** Whether {@code chunk} is chunk {@code index} of these weights: its length and CRC32C are the notice's. */
        public boolean matches(int index, byte[] chunk) {
            if (checksums == null) throw new IllegalStateException("weights version " + version + " were announced without checksums");
            return chunk != null && chunk.length == chunkLength(index) && crc32c(chunk, 0, chunk.length) == checksums[index];
        }

        // A record compares arrays by identity: notices that crossed a wire must still be equal.
        @Override
        public boolean equals(Object o) {
            return o instanceof WeightsNotice n && version == n.version && totalBytes == n.totalBytes && chunkSize == n.chunkSize
                    && chunkCount == n.chunkCount && Arrays.equals(checksums, n.checksums) && source.equals(n.source);
        }

        @Override
        public int hashCode() {
            return Objects.hash(version, totalBytes, chunkSize, Arrays.hashCode(checksums), source);
        }

        @Override
        public String toString() {
            return "WeightsNotice[version=" + version + ", totalBytes=" + totalBytes + ", chunkSize=" + chunkSize + ", chunkCount="
                    + chunkCount + (checksums == null ? ", no checksums" : "") + ", source=" + source + "]";
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

    /**
     * Send me chunk {@code index} of version {@code version} ({@link WeightsChunk} or {@link ChunkUnavailable}),
     * with {@code nonce} in the answer. The nonce is a number the fetcher drew at random for this fetch:
     * only the source it asked learns it, so an answer without it was not asked for. The notice's CRC32C
     * catches corruption but any member could make a chunk that matches it; a forged answer cannot carry
     * the nonce.
     */
    public record FetchChunk(long version, int index, long nonce, ActorRef<FetcherCommand> replyTo) implements SourceCommand {}

    /** Chunk {@code index} of version {@code version}: the bytes from {@code index * chunkSize} on; {@code nonce} the request's. */
    public record WeightsChunk(long version, int index, long nonce, byte[] bytes) implements FetcherCommand {}

    /**
     * Send me all of version {@code version} in one {@link WholeWeights} (or {@link ChunkUnavailable}
     * with index {@link #WHOLE}). Only from a fetcher in the source's own actor system: the reply
     * is the source's array itself, which no frame between nodes could carry for a large model.
     */
    public record FetchWhole(long version, long nonce, ActorRef<FetcherCommand> replyTo) implements SourceCommand {}

    /**
     * All of version {@code version}: the very array the source holds, shared and never to be
     * written. Serialisable like every message (tests serialise even local ones), but only ever sent
     * within one JVM, where it goes by reference: no copy, no checksum.
     */
    public record WholeWeights(long version, long nonce, byte[] bytes) implements FetcherCommand {}

    /** The index in a {@link ChunkUnavailable} that answers a {@link FetchWhole}. */
    public static final int WHOLE = -1;

    /**
     * The source no longer holds {@code version} (or it has no such chunk; {@code index} is
     * {@link #WHOLE} for a {@link FetchWhole}); {@code newest} is what it holds now, null when nothing;
     * {@code nonce} the request's.
     */
    public record ChunkUnavailable(long version, int index, long nonce, WeightsNotice newest) implements FetcherCommand {}

    /** Whether {@code ref} is in this actor system, where a message goes by reference and never crosses a wire. */
    public static boolean inThisJvm(ActorRef<?> ref) {
        return ref.path().address().hasLocalScope();
    }

    /** CRC32C of {@code length} bytes of {@code bytes} from {@code offset}, as the notice carries it. */
    public static int crc32c(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }
}
