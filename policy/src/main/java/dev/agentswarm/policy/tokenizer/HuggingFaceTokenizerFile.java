package dev.agentswarm.policy.tokenizer;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.agentswarm.core.context.TokenCounter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A user's own Hugging Face {@code tokenizer.json}, through DJL's binding of the Rust tokenizers
 * library (its native code ships inside the jar, so it loads offline). Counts tokens exactly as
 * the user's model does, which keeps context budgets honest for an OpenAI-compatible server.
 */
public final class HuggingFaceTokenizerFile implements TokenCounter, AutoCloseable {

    private final HuggingFaceTokenizer tokenizer;

    private HuggingFaceTokenizerFile(HuggingFaceTokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** Loads {@code tokenizer.json}; a missing or malformed file is an {@link IOException} naming it. */
    public static HuggingFaceTokenizerFile load(Path file) throws IOException {
        if (!Files.isRegularFile(file)) throw new IOException("no tokenizer file at " + file);
        try {
            return new HuggingFaceTokenizerFile(HuggingFaceTokenizer.builder().optTokenizerPath(file)
                    .optAddSpecialTokens(false).build());
        } catch (RuntimeException e) {
            throw new IOException("cannot load tokenizer " + file + ": " + e.getMessage(), e);
        }
    }

    /** Token ids of {@code text}, without the special tokens a post-processor would add. */
    public int[] encode(String text) {
        Encoding e = tokenizer.encode(text, false, false);
        long[] ids = e.getIds();
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) out[i] = Math.toIntExact(ids[i]);
        return out;
    }

    public String decode(int[] ids) {
        long[] longs = new long[ids.length];
        for (int i = 0; i < ids.length; i++) longs[i] = ids[i];
        return tokenizer.decode(longs, false);
    }

    @Override
    public int count(String text) {
        return encode(text).length;
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
