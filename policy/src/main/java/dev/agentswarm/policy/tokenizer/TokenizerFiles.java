package dev.agentswarm.policy.tokenizer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.agentswarm.core.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * What a model folder says about its vocabulary beyond encode/decode: id ↔ token, which tokens are
 * special, eos/pad/stop ids and the bytes behind each token. {@code tokenizer.json} is streamed
 * (Gemma's is 33 MB) and its merges skipped.
 */
final class TokenizerFiles {

    /** How a vocabulary spells bytes. */
    enum Scheme { BYTE_LEVEL, SENTENCEPIECE, PLAIN }

    private final String[] tokens;
    private final Map<String, Integer> ids;
    private final BitSet special;
    private final BitSet added;
    private final Scheme scheme;
    private final JsonNode config;
    private final int eosId;
    private final OptionalInt padId;
    private final int[] generationEos;

    private TokenizerFiles(String[] tokens, Map<String, Integer> ids, BitSet special, BitSet added, Scheme scheme,
                           JsonNode config, int[] generationEos, Path dir) throws IOException {
        this.tokens = tokens;
        this.ids = ids;
        this.special = special;
        this.added = added;
        this.scheme = scheme;
        this.config = config;
        this.generationEos = generationEos;
        String eos = tokenString(config.get("eos_token"));
        if (eos == null || !ids.containsKey(eos)) {
            throw new IOException("tokenizer_config.json in " + dir + " names no known eos_token (got " + eos + ")");
        }
        this.eosId = ids.get(eos);
        String pad = tokenString(config.get("pad_token"));
        this.padId = pad != null && ids.containsKey(pad) ? OptionalInt.of(ids.get(pad)) : OptionalInt.empty();
    }

    static TokenizerFiles read(Path dir) throws IOException {
        Path configFile = dir.resolve("tokenizer_config.json");
        JsonNode config = Files.isRegularFile(configFile) ? HfTokenizer.readJson(configFile) : NullNode.instance;
        if (!config.isObject()) throw new IOException("no tokenizer_config.json in " + dir);
        int[] genEos = new int[0];
        Path gen = dir.resolve("generation_config.json");
        if (Files.isRegularFile(gen)) {
            JsonNode e = HfTokenizer.readJson(gen).path("eos_token_id");
            if (e.isInt()) genEos = new int[] {e.asInt()};
            else if (e.isArray()) {
                genEos = new int[e.size()];
                for (int i = 0; i < e.size(); i++) genEos[i] = e.get(i).asInt();
            }
        }
        Map<String, Integer> ids = new HashMap<>();
        BitSet special = new BitSet();
        BitSet added = new BitSet();
        Map<Integer, String> addedContent = new HashMap<>();
        JsonNode decoder = NullNode.instance;
        Path file = dir.resolve("tokenizer.json");
        try (JsonParser p = Json.MAPPER.getFactory().createParser(file.toFile())) {
            expect(p.nextToken(), JsonToken.START_OBJECT, file);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "added_tokens" -> {
                        for (JsonNode t : (JsonNode) Json.MAPPER.readTree(p)) {
                            int id = t.get("id").asInt();
                            ids.put(t.get("content").asText(), id);
                            added.set(id);
                            addedContent.put(id, t.get("content").asText());
                            if (t.path("special").asBoolean(false)) special.set(id);
                        }
                    }
                    case "decoder" -> decoder = Json.MAPPER.readTree(p);
                    case "model" -> readModel(p, ids, file);
                    default -> p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        int size = ids.values().stream().mapToInt(Integer::intValue).max().orElse(-1) + 1;
        String[] tokens = new String[size];
        ids.forEach((t, id) -> {
            if (tokens[id] == null) tokens[id] = t;
        });
        addedContent.forEach((id, t) -> tokens[id] = t); // an added token wins over a model entry with its id
        return new TokenizerFiles(tokens, ids, special, added, schemeOf(decoder), config, genEos, dir);
    }

    private static void readModel(JsonParser p, Map<String, Integer> ids, Path file) throws IOException {
        expect(p.currentToken(), JsonToken.START_OBJECT, file);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if (field.equals("vocab") && t == JsonToken.START_OBJECT) { // BPE, WordPiece, WordLevel: token → id
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String token = p.currentName();
                    p.nextToken();
                    ids.putIfAbsent(token, p.getIntValue());
                }
            } else if (field.equals("vocab") && t == JsonToken.START_ARRAY) { // Unigram: [token, score] by id
                int id = 0;
                while (p.nextToken() == JsonToken.START_ARRAY) {
                    p.nextToken();
                    ids.putIfAbsent(p.getText(), id++);
                    while (p.nextToken() != JsonToken.END_ARRAY) p.skipChildren();
                }
            } else {
                p.skipChildren();
            }
        }
    }

    private static void expect(JsonToken got, JsonToken want, Path file) throws IOException {
        if (got != want) throw new IOException(file + ": expected " + want + " but found " + got);
    }

    private static Scheme schemeOf(JsonNode decoder) {
        String text = decoder.toString();
        if (text.contains("\"ByteLevel\"")) return Scheme.BYTE_LEVEL;
        if (text.contains("\"ByteFallback\"") || text.contains("\"Metaspace\"") || text.contains("▁")) return Scheme.SENTENCEPIECE;
        return Scheme.PLAIN;
    }

    /** A token string from the config: a plain string or an AddedToken object {@code {"content": ...}}. */
    static String tokenString(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) return null;
        if (n.isTextual()) return n.asText();
        if (n.has("content")) return n.get("content").asText();
        return null;
    }

    int vocabSize() {
        return tokens.length;
    }

    OptionalInt id(String token) {
        Integer id = ids.get(token);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    String token(int id) {
        return id >= 0 && id < tokens.length ? tokens[id] : null;
    }

    boolean isSpecial(int id) {
        return special.get(id);
    }

    int eosId() {
        return eosId;
    }

    OptionalInt padId() {
        return padId;
    }

    int[] generationEosIds() {
        return generationEos.clone();
    }

    JsonNode config() {
        return config;
    }

    byte[] tokenBytes(int id) {
        String t = token(id);
        if (t == null) throw new IllegalArgumentException("no token with id " + id + " (vocabulary size " + tokens.length + ")");
        return switch (scheme) {
            // Added tokens are stored as text, not in the byte alphabet.
            case BYTE_LEVEL -> added.get(id) ? t.getBytes(StandardCharsets.UTF_8) : ByteLevelAlphabet.decode(t);
            // Gemma's added whitespace runs ("▁▁▁") go through the same ▁ → space rule as its pieces.
            case SENTENCEPIECE -> sentencePieceBytes(t);
            case PLAIN -> t.getBytes(StandardCharsets.UTF_8);
        };
    }

    private static byte[] sentencePieceBytes(String t) {
        if (t.length() == 6 && t.startsWith("<0x") && t.endsWith(">")) {
            try {
                return new byte[] {(byte) Integer.parseInt(t.substring(3, 5), 16)};
            } catch (NumberFormatException notAByte) {
                // an ordinary token that looks like one
            }
        }
        return t.replace('▁', ' ').getBytes(StandardCharsets.UTF_8);
    }

    /** For tests: all tokens, by id. */
    List<String> tokens() {
        List<String> out = new ArrayList<>(tokens.length);
        for (String t : tokens) out.add(t);
        return out;
    }

    /** GPT-2's byte ↔ printable-character alphabet used by byte-level BPE. */
    static final class ByteLevelAlphabet {
        private static final int[] CHAR_TO_BYTE = new int[512];

        static {
            java.util.Arrays.fill(CHAR_TO_BYTE, -1);
            int next = 256;
            for (int b = 0; b < 256; b++) {
                boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
                CHAR_TO_BYTE[printable ? b : next++] = b;
            }
        }

        static byte[] decode(String token) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(token.length());
            for (int i = 0; i < token.length(); i++) {
                char c = token.charAt(i);
                int b = c < CHAR_TO_BYTE.length ? CHAR_TO_BYTE[c] : -1;
                if (b < 0) {
                    byte[] raw = String.valueOf(c).getBytes(StandardCharsets.UTF_8); // not of the alphabet: keep it
                    out.write(raw, 0, raw.length);
                } else {
                    out.write(b);
                }
            }
            return out.toByteArray();
        }
    }
}
