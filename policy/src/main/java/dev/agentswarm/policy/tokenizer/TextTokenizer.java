package dev.agentswarm.policy.tokenizer;

import dev.agentswarm.core.context.TokenCounter;

/**
 * What the engine needs of a tokenizer, whichever it is: the project's own byte-level BPE
 * ({@link BpeTokenizer}) or a Hugging Face model's {@code tokenizer.json} ({@link HfTokenizer}).
 */
public interface TextTokenizer extends TokenCounter {

    /** Token ids of {@code text}; special tokens written in the text become their ids, nothing is added. */
    int[] encode(String text);

    /** The text of a sequence of ids; bytes that are not valid UTF-8 become U+FFFD. */
    String decode(int[] ids);

    /** The raw bytes one token stands for: generated ids turn into text byte-exactly, a character may span tokens. */
    byte[] tokenBytes(int id);

    /** The largest id plus one (the embedding rows a model needs at least). */
    int vocabSize();

    /** The id batches are padded with. */
    int padId();

    /** The end-of-text id. */
    int eosId();
}
