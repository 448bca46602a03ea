package dev.agentswarm.environments.bfcl;

import dev.agentswarm.environments.bfcl.BfclChecker.Language;
import java.util.Locale;

/**
 * BFCL v4's single-turn categories: the file each is read from, the language its functions are
 * written in, and whether it is scored by the AST checker or by relevance alone (irrelevance: no call
 * is right; relevance: any call is). Live categories are questions users asked, with their own functions.
 */
public enum BfclCategory {
    SIMPLE_PYTHON(Language.PYTHON, false),
    SIMPLE_JAVA(Language.JAVA, false),
    SIMPLE_JAVASCRIPT(Language.JAVASCRIPT, false),
    MULTIPLE(Language.PYTHON, false),
    PARALLEL(Language.PYTHON, false),
    PARALLEL_MULTIPLE(Language.PYTHON, false),
    IRRELEVANCE(Language.PYTHON, false),
    LIVE_SIMPLE(Language.PYTHON, true),
    LIVE_MULTIPLE(Language.PYTHON, true),
    LIVE_PARALLEL(Language.PYTHON, true),
    LIVE_PARALLEL_MULTIPLE(Language.PYTHON, true),
    LIVE_IRRELEVANCE(Language.PYTHON, true),
    LIVE_RELEVANCE(Language.PYTHON, true);

    private final Language language;
    private final boolean live;

    BfclCategory(Language language, boolean live) {
        this.language = language;
        this.live = live;
    }

    /** The name BFCL and its ids use: {@code simple_python}, {@code live_parallel}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public Language language() {
        return language;
    }

    public boolean live() {
        return live;
    }

    /** Scored on whether the model called a function at all, not on the calls' contents. */
    public boolean relevanceOnly() {
        return this == IRRELEVANCE || this == LIVE_IRRELEVANCE || this == LIVE_RELEVANCE;
    }

    /** Whether a call is the right response (relevance) or the wrong one (irrelevance); only for {@link #relevanceOnly}. */
    public boolean callWanted() {
        return this == LIVE_RELEVANCE;
    }

    public String questionFile() {
        return "BFCL_v4_" + label() + ".json";
    }

    public String answerFile() {
        return "possible_answer/" + questionFile();
    }

    /** The hint BFCL appends to every function's description. */
    String languageHint() {
        return switch (language) {
            case JAVA -> " Note that the provided function is in Java 8 SDK syntax.";
            case JAVASCRIPT -> " Note that the provided function is in JavaScript syntax.";
            default -> " Note that the provided function is in Python 3 syntax.";
        };
    }

    public static BfclCategory parse(String label) {
        for (BfclCategory c : values()) if (c.label().equals(label.trim())) return c;
        throw new IllegalArgumentException("unknown BFCL category \"" + label + "\"; known: "
                + java.util.Arrays.stream(values()).map(BfclCategory::label).toList());
    }
}
