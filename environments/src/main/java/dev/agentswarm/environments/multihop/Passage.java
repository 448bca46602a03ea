package dev.agentswarm.environments.multihop;

import java.util.List;

/**
 * One searchable document: a paragraph of a MuSiQue or HotpotQA question, or an entity's page in the
 * generated world. {@code key} is what an answer cites ({@code [8]}); when the corpus cites
 * sentences (HotpotQA's supporting facts), sentence {@code i} is cited as {@code [key.i]}.
 */
public record Passage(String key, String title, List<String> sentences) {

    public Passage {
        if (key == null || key.isBlank()) throw new IllegalArgumentException("a passage needs a key");
        title = title == null ? "" : title;
        sentences = List.copyOf(sentences);
    }

    public static Passage of(String key, String title, String text) {
        return new Passage(key, title, List.of(text));
    }

    public String text() {
        return String.join("", sentences);
    }
}
