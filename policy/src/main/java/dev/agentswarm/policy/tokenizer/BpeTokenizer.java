package dev.agentswarm.policy.tokenizer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Byte-level BPE: ids 0..255 are the bytes, then the special tokens, then one id per learned
 * merge in rank order. Every string is encodable (it is bytes at worst) and {@code decode(encode(s))}
 * gives back {@code s} for any well-formed UTF-16 string. Immutable and thread-safe.
 */
public final class BpeTokenizer implements TextTokenizer {

    public static final String IM_START = "<|im_start|>";
    public static final String IM_END = "<|im_end|>";
    public static final String END_OF_TEXT = "<|endoftext|>";
    public static final String PAD = "<|pad|>";

    /** Chat roles plus the tags of every tool-call format in core, so a tag is always one id. */
    public static final List<String> DEFAULT_SPECIALS = List.of(
            IM_START, IM_END, "<|system|>", "<|user|>", "<|assistant|>", "<|tool|>", END_OF_TEXT, PAD,
            "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>",
            "<tools>", "</tools>", "<think>", "</think>");

    static final int BYTE_TOKENS = 256;
    static final int FORMAT_VERSION = 1;
    static final String FORMAT_NAME = "agentswarm-bpe";

    /** Tool outputs repeat, so chunk encodings are cached; past the cap the cache starts over. */
    private static final int CACHE_CAP = 65_536;
    /** Long chunks (base64, minified JSON) rarely repeat and would only crowd the cache. */
    private static final int CACHE_MAX_CHUNK = 64;

    private final List<String> specials;
    private final Map<String, Integer> specialIds;
    private final List<Merge> merges;
    private final PairRanks rankOfPair;
    private final byte[][] tokenBytes;
    private final SpecialMatcher matcher;
    private final ConcurrentHashMap<String, int[]> cache = new ConcurrentHashMap<>();

    /** Numbers are split into single digits, as Qwen's and Llama's tokenizers do. */
    public static final int DIGIT_GROUP = 1;

    /** What files written before digitGroup was recorded used: GPT-4's groups of three. */
    static final int LEGACY_DIGIT_GROUP = 3;

    private final int digitGroup;

    /**
     * @param specials special token texts; the i-th gets id 256 + i
     * @param merges learned merges in rank order; the r-th makes id 256 + specials + r
     */
    public BpeTokenizer(List<String> specials, List<Merge> merges) {
        this(specials, merges, DIGIT_GROUP);
    }

    /** @param digitGroup the most digits a merge may join (1: numbers are spelled digit by digit) */
    public BpeTokenizer(List<String> specials, List<Merge> merges, int digitGroup) {
        if (digitGroup < 1) throw new IllegalArgumentException("digitGroup must be >= 1, got " + digitGroup);
        this.digitGroup = digitGroup;
        this.specials = List.copyOf(specials);
        this.merges = List.copyOf(merges);
        Map<String, Integer> ids = new HashMap<>();
        for (int i = 0; i < this.specials.size(); i++) {
            String s = this.specials.get(i);
            if (s.isEmpty()) {
                throw new IllegalArgumentException("special token " + (BYTE_TOKENS + i) + " is empty");
            }
            if (ids.putIfAbsent(s, BYTE_TOKENS + i) != null) {
                throw new IllegalArgumentException("duplicate special token " + s);
            }
        }
        this.specialIds = Collections.unmodifiableMap(ids);
        int firstMerged = BYTE_TOKENS + this.specials.size();
        this.tokenBytes = new byte[firstMerged + this.merges.size()][];
        for (int b = 0; b < BYTE_TOKENS; b++) {
            tokenBytes[b] = new byte[] {(byte) b};
        }
        for (int i = 0; i < this.specials.size(); i++) {
            tokenBytes[BYTE_TOKENS + i] = this.specials.get(i).getBytes(StandardCharsets.UTF_8);
        }
        this.rankOfPair = new PairRanks(this.merges.size());
        for (int r = 0; r < this.merges.size(); r++) {
            Merge m = this.merges.get(r);
            int id = firstMerged + r;
            for (int part : new int[] {m.left(), m.right()}) {
                // A merge may only use bytes or earlier merges: specials are never inside chunks.
                if (part < 0 || part >= id || (part >= BYTE_TOKENS && part < firstMerged)) {
                    throw new IllegalArgumentException("merge " + r + " (" + m.left() + ", " + m.right()
                            + ") references id " + part + ", which is not a byte or an earlier merge");
                }
            }
            int earlier = rankOfPair.putIfAbsent(m.key(), r);
            if (earlier >= 0) {
                throw new IllegalArgumentException("merge " + r + " (" + m.left() + ", " + m.right()
                        + ") duplicates merge " + earlier);
            }
            byte[] l = tokenBytes[m.left()];
            byte[] rr = tokenBytes[m.right()];
            byte[] joined = Arrays.copyOf(l, l.length + rr.length);
            System.arraycopy(rr, 0, joined, l.length, rr.length);
            tokenBytes[id] = joined;
        }
        this.matcher = new SpecialMatcher(this.specials);
    }

    /** The byte vocabulary and the default specials, no merges: every byte is one token. */
    public static BpeTokenizer untrained() {
        return new BpeTokenizer(DEFAULT_SPECIALS, List.of());
    }

    // ---- vocabulary ----

    public int vocabSize() {
        return tokenBytes.length;
    }

    public List<String> specialTokens() {
        return specials;
    }

    public List<Merge> merges() {
        return merges;
    }

    /** The id of a special token, or IllegalArgumentException when it is not one of this vocabulary. */
    public int idOf(String specialToken) {
        Integer id = specialIds.get(specialToken);
        if (id == null) {
            throw new IllegalArgumentException("not a special token: " + specialToken);
        }
        return id;
    }

    public boolean isSpecial(int id) {
        return id >= BYTE_TOKENS && id < BYTE_TOKENS + specials.size();
    }

    public int padId() {
        return idOf(PAD);
    }

    public int eosId() {
        return idOf(END_OF_TEXT);
    }

    public int imStartId() {
        return idOf(IM_START);
    }

    public int imEndId() {
        return idOf(IM_END);
    }

    /** Human-readable text of one token: its text when it is valid UTF-8, else its bytes as {@code <0xNN>}. */
    public String tokenText(int id) {
        byte[] bytes = bytesOf(id);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            StringBuilder sb = new StringBuilder();
            for (byte b : bytes) {
                sb.append(String.format("<0x%02X>", b & 0xff));
            }
            return sb.toString();
        }
    }

    // ---- encoding ----

    /**
     * Encodes text, turning every verbatim occurrence of a special token into its id. A lone
     * surrogate (malformed UTF-16) has no UTF-8 form and comes back from decoding as '?'.
     */
    public int[] encode(String text) {
        return encode(text, true);
    }

    /**
     * @param allowSpecials false for untrusted text (a tool's output), whose look-alike tags must stay
     *     plain bytes rather than become control tokens
     */
    public int[] encode(String text, boolean allowSpecials) {
        IntList out = new IntList(Math.max(16, text.length() / 3));
        if (!allowSpecials) {
            encodeOrdinary(text, out);
            return out.toArray();
        }
        int from = 0;
        int n = text.length();
        while (from < n) {
            int[] hit = matcher.find(text, from);
            if (hit == null) {
                encodeOrdinary(text.substring(from), out);
                break;
            }
            if (hit[0] > from) {
                encodeOrdinary(text.substring(from, hit[0]), out);
            }
            out.add(BYTE_TOKENS + hit[1]);
            from = hit[0] + specials.get(hit[1]).length();
        }
        return out.toArray();
    }

    @Override
    public int count(String text) {
        return text == null ? 0 : encode(text).length;
    }

    private void encodeOrdinary(String text, IntList out) {
        PreTokenizer.split(text, digitGroup, chunk -> {
            int[] ids = chunk.length() <= CACHE_MAX_CHUNK ? cache.get(chunk) : null;
            if (ids == null) {
                ids = encodeChunk(chunk.getBytes(StandardCharsets.UTF_8));
                if (chunk.length() <= CACHE_MAX_CHUNK) {
                    if (cache.size() >= CACHE_CAP) {
                        cache.clear();
                    }
                    cache.put(chunk, ids);
                }
            }
            out.addAll(ids);
        });
    }

    /**
     * Applies merges to one chunk, lowest rank first and leftmost first among equal ranks. Tokens
     * form a linked list over positions and candidate pairs sit in a min-heap keyed by (rank,
     * position), so a chunk of n bytes costs O(n log n) instead of rescanning after each merge.
     */
    int[] encodeChunk(byte[] bytes) {
        int n = bytes.length;
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = bytes[i] & 0xff;
        }
        if (n < 2 || merges.isEmpty()) {
            return ids;
        }
        int[] next = new int[n];
        int[] prev = new int[n];
        for (int i = 0; i < n; i++) {
            next[i] = i + 1 < n ? i + 1 : -1;
            prev[i] = i - 1;
        }
        boolean[] dead = new boolean[n];
        LongHeap heap = new LongHeap(n);
        for (int i = 0; i + 1 < n; i++) {
            pushPair(heap, ids, i, i + 1);
        }
        int firstMerged = BYTE_TOKENS + specials.size();
        int alive = n;
        while (!heap.isEmpty()) {
            long top = heap.pop();
            int rank = (int) (top >>> 32);
            int pos = (int) top;
            int right = dead[pos] ? -1 : next[pos];
            // Entries go stale when a neighbour merged; the current pair must still have this rank.
            if (right < 0 || rankOf(ids[pos], ids[right]) != rank) {
                continue;
            }
            ids[pos] = firstMerged + rank;
            dead[right] = true;
            alive--;
            next[pos] = next[right];
            if (next[pos] >= 0) {
                prev[next[pos]] = pos;
                pushPair(heap, ids, pos, next[pos]);
            }
            if (prev[pos] >= 0) {
                pushPair(heap, ids, prev[pos], pos);
            }
        }
        int[] out = new int[alive];
        int k = 0;
        for (int i = 0; i >= 0; i = next[i]) {
            out[k++] = ids[i];
        }
        return out;
    }

    private void pushPair(LongHeap heap, int[] ids, int left, int right) {
        int rank = rankOf(ids[left], ids[right]);
        if (rank >= 0) {
            heap.push(((long) rank << 32) | left);
        }
    }

    private int rankOf(int left, int right) {
        return rankOfPair.get(Merge.pairKey(left, right));
    }

    // ---- decoding ----

    /** The concatenated bytes of the tokens; a multi-byte character may span several tokens. */
    public byte[] decodeBytes(int[] ids) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(ids.length * 4);
        for (int id : ids) {
            out.writeBytes(bytesOf(id));
        }
        return out.toByteArray();
    }

    @Override
    public byte[] tokenBytes(int id) {
        return bytesOf(id).clone();
    }

    /** Decodes the whole sequence at once; bytes that are not valid UTF-8 become U+FFFD. */
    public String decode(int[] ids) {
        return new String(decodeBytes(ids), StandardCharsets.UTF_8);
    }

    private byte[] bytesOf(int id) {
        if (id < 0 || id >= tokenBytes.length) {
            throw new IllegalArgumentException("unknown token id " + id + " (vocabulary size " + tokenBytes.length + ")");
        }
        return tokenBytes[id];
    }

    // ---- persistence ----

    /**
     * {"format":"agentswarm-bpe","version":1,"specialTokens":[{"id":256,"text":"<|im_start|>"},…],
     * "merges":[[left,right],…]} with merges in rank order, so ids are implied and stable.
     */
    public String toJson() {
        ObjectNode root = Json.object();
        root.put("format", FORMAT_NAME);
        root.put("version", FORMAT_VERSION);
        root.put("digitGroup", digitGroup);
        ArrayNode sp = root.putArray("specialTokens");
        for (int i = 0; i < specials.size(); i++) {
            sp.addObject().put("id", BYTE_TOKENS + i).put("text", specials.get(i));
        }
        ArrayNode ms = root.putArray("merges");
        for (Merge m : merges) {
            ms.addArray().add(m.left()).add(m.right());
        }
        return Json.write(root);
    }

    public static BpeTokenizer fromJson(String json) {
        JsonNode root;
        try {
            root = Json.parse(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("tokenizer file is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("tokenizer file must hold a JSON object");
        }
        JsonNode format = root.get("format");
        if (format == null || !FORMAT_NAME.equals(format.asText())) {
            throw new IllegalArgumentException("tokenizer file has format " + format + ", expected \"" + FORMAT_NAME + "\"");
        }
        JsonNode version = root.get("version");
        if (version == null || !version.isInt()) {
            throw new IllegalArgumentException("tokenizer file lacks an integer \"version\"");
        }
        if (version.asInt() != FORMAT_VERSION) {
            throw new IllegalArgumentException("unsupported tokenizer format version " + version.asInt()
                    + " (this build reads version " + FORMAT_VERSION + ")");
        }
        JsonNode sp = root.get("specialTokens");
        if (sp == null || !sp.isArray()) {
            throw new IllegalArgumentException("tokenizer file lacks the \"specialTokens\" array");
        }
        List<String> specials = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < sp.size(); i++) {
            JsonNode t = sp.get(i);
            JsonNode id = t.get("id");
            JsonNode text = t.get("text");
            if (id == null || !id.isInt() || text == null || !text.isTextual()) {
                throw new IllegalArgumentException("special token " + i + " needs an integer \"id\" and a string \"text\": " + t);
            }
            if (id.asInt() != BYTE_TOKENS + i) {
                throw new IllegalArgumentException("special token " + text.asText() + " has id " + id.asInt()
                        + ", expected " + (BYTE_TOKENS + i) + " (specials follow the 256 byte ids in order)");
            }
            if (!seen.add(text.asText())) {
                throw new IllegalArgumentException("duplicate special token " + text.asText());
            }
            specials.add(text.asText());
        }
        JsonNode ms = root.get("merges");
        if (ms == null || !ms.isArray()) {
            throw new IllegalArgumentException("tokenizer file lacks the \"merges\" array");
        }
        List<Merge> merges = new ArrayList<>(ms.size());
        for (int r = 0; r < ms.size(); r++) {
            JsonNode m = ms.get(r);
            if (!m.isArray() || m.size() != 2 || !m.get(0).isInt() || !m.get(1).isInt()) {
                throw new IllegalArgumentException("merge " + r + " must be a pair of integer ids: " + m);
            }
            merges.add(new Merge(m.get(0).asInt(), m.get(1).asInt()));
        }
        JsonNode group = root.get("digitGroup");
        if (group != null && (!group.isInt() || group.asInt() < 1)) {
            throw new IllegalArgumentException("\"digitGroup\" must be an integer >= 1, got " + group);
        }
        return new BpeTokenizer(specials, merges, group == null ? LEGACY_DIGIT_GROUP : group.asInt());
    }

    /** The most digits one token spans. */
    public int digitGroup() {
        return digitGroup;
    }

    public void save(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, toJson(), StandardCharsets.UTF_8);
    }

    public static BpeTokenizer load(Path file) throws IOException {
        String json = Files.readString(file, StandardCharsets.UTF_8);
        try {
            return fromJson(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }
}
