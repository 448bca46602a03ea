package dev.agentswarm.policy.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A real model folder's tokenizer ({@code tokenizer.json} + {@code tokenizer_config.json} +
 * optional {@code generation_config.json}), exactly as Hugging Face tokenizes: encoding and
 * decoding go through DJL's binding of the Rust {@code tokenizers} library (native code inside the
 * jar, loads offline). What that binding does not expose (the vocabulary, which tokens are special,
 * eos/pad/stop ids, the bytes behind a token) is read from the same files by {@link TokenizerFiles}.
 *
 * <p>{@link #encode(String)} adds no special tokens ({@code add_special_tokens=False}), which is what
 * a rendered chat template needs: the template writes its own BOS. Special tokens written in the
 * text (for example {@code <|im_start|>}) are matched as specials, as in Hugging Face.
 */
public final class HfTokenizer implements TextTokenizer, AutoCloseable {

    static {
        // Never reach for the network: the tokenizer's native library ships inside the jar.
        if (System.getProperty("ai.djl.offline") == null) System.setProperty("ai.djl.offline", "true");
    }

    private final HuggingFaceTokenizer tokenizer;
    private final TokenizerFiles files;

    private HfTokenizer(HuggingFaceTokenizer tokenizer, TokenizerFiles files) {
        this.tokenizer = tokenizer;
        this.files = files;
    }

    /** Loads the tokenizer of a model folder; a missing or malformed file is an {@link IOException} naming it. */
    public static HfTokenizer load(Path modelDir) throws IOException {
        Path json = modelDir.resolve("tokenizer.json");
        if (!Files.isRegularFile(json)) {
            throw new IOException("no tokenizer.json in " + modelDir + " (expected a Hugging Face model folder)");
        }
        TokenizerFiles files = TokenizerFiles.read(modelDir);
        try {
            HuggingFaceTokenizer t = HuggingFaceTokenizer.builder()
                    .optTokenizerPath(json)
                    .optAddSpecialTokens(false)
                    .optTruncation(false)
                    .optPadding(false)
                    .build();
            return new HfTokenizer(t, files);
        } catch (RuntimeException e) {
            throw new IOException("cannot load tokenizer " + json + ": " + e.getMessage(), e);
        }
    }

    /** Token ids of {@code text} with no special tokens added (special tokens in the text still match). */
    public int[] encode(String text) {
        return encode(text, false);
    }

    /** Token ids of {@code text}; {@code addSpecialTokens} runs the post-processor (e.g. Llama-3's BOS). */
    public int[] encode(String text, boolean addSpecialTokens) {
        return toInts(tokenizer.encode(text, addSpecialTokens, false).getIds());
    }

    public String decode(int[] ids) {
        return decode(ids, false);
    }

    public String decode(int[] ids, boolean skipSpecialTokens) {
        long[] longs = new long[ids.length];
        for (int i = 0; i < ids.length; i++) longs[i] = ids[i];
        return tokenizer.decode(longs, skipSpecialTokens);
    }

    /**
     * The raw bytes one token stands for, so that a stream of generated ids can be turned into text
     * byte-exactly (a character may span tokens). Byte-level BPE maps its printable alphabet back to
     * bytes (its added tokens are plain text); SentencePiece-style vocabularies turn {@code ▁} into a
     * space and {@code <0xNN>} into a byte (Gemma's added whitespace runs too).
     */
    public byte[] tokenBytes(int id) {
        return files.tokenBytes(id);
    }

    /** The largest id plus one, added tokens included (the embedding rows a model needs at least). */
    public int vocabSize() {
        return files.vocabSize();
    }

    public OptionalInt id(String token) {
        return files.id(token);
    }

    /** The token's string in the vocabulary (byte-level tokens in their printable alphabet); null when unknown. */
    public String token(int id) {
        return files.token(id);
    }

    public boolean isSpecial(int id) {
        return files.isSpecial(id);
    }

    /** The config's {@code eos_token}. */
    public int eosId() {
        return files.eosId();
    }

    /** Ids that end generation: {@code eos_token} and every {@code eos_token_id} of {@code generation_config.json}. */
    public int[] stopIds() {
        Set<Integer> ids = new LinkedHashSet<>();
        ids.add(files.eosId());
        for (int id : files.generationEosIds()) ids.add(id);
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The config's {@code pad_token}, else the eos token. */
    public int padId() {
        return files.padId().orElse(files.eosId());
    }

    /** {@code tokenizer_config.json} as read (its chat template, special token strings...). */
    public JsonNode config() {
        return files.config();
    }

    @Override
    public int count(String text) {
        return encode(text).length;
    }

    @Override
    public void close() {
        tokenizer.close();
    }

    private static int[] toInts(long[] ids) {
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) out[i] = Math.toIntExact(ids[i]);
        return out;
    }

    @Override
    public String toString() {
        return "HfTokenizer[vocab=" + vocabSize() + ", eos=" + eosId() + ", stop=" + Arrays.toString(stopIds()) + "]";
    }

    static JsonNode readJson(Path file) throws IOException {
        try {
            return Json.MAPPER.readTree(file.toFile());
        } catch (IOException e) {
            throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
