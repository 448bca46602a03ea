package dev.agentswarm.core.context;

/**
 * The estimate used when no tokenizer is known: one token per 4 characters (rounded up), the
 * rule of thumb for BPE vocabularies on English text. It errs high on short words, which keeps
 * budgets safe.
 */
public final class ApproxTokenCounter implements TokenCounter {

    public static final ApproxTokenCounter INSTANCE = new ApproxTokenCounter();

    private ApproxTokenCounter() {}

    @Override
    public int count(String text) {
        return text == null ? 0 : (text.length() + 3) / 4;
    }
}
