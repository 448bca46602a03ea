package dev.agentswarm.policy.tokenizer;

import java.util.function.Consumer;

/**
 * Splits ordinary text (specials already removed) into the chunks that merges never cross: a
 * letter run with at most one leading space, a digit run of at most {@code digitGroup} digits, a punctuation run with
 * at most one leading space, or a whitespace run. A hand-written scanner over code points, linear
 * in the input, so no input can make it backtrack and surrogate pairs are never split.
 */
final class PreTokenizer {

    private PreTokenizer() {}

    /**
     * @param digitGroup the most digits one chunk holds: 1 splits numbers into single digits (as
     *     Qwen and Llama do, so a small model copies and compares numbers digit by digit), 3 groups
     *     them as GPT-4 does
     */
    static void split(String text, int digitGroup, Consumer<String> chunk) {
        int n = text.length();
        int i = 0;
        while (i < n) {
            int start = i;
            int cp = text.codePointAt(i);
            int kind = kind(cp);
            if (kind == SPACE) {
                int end = endOfRun(text, i, SPACE);
                // A single ' ' before a word or punctuation belongs to that chunk (" the"), so a
                // longer run gives its last plain space to what follows.
                if (end < n && text.charAt(end - 1) == ' ' && kind(text.codePointAt(end)) != DIGIT) {
                    if (end - 1 > start) {
                        chunk.accept(text.substring(start, end - 1));
                        i = end - 1;
                        continue;
                    }
                    int after = kind(text.codePointAt(end));
                    int wordEnd = endOfRun(text, end, after);
                    chunk.accept(text.substring(start, wordEnd));
                    i = wordEnd;
                    continue;
                }
                chunk.accept(text.substring(start, end));
                i = end;
            } else if (kind == DIGIT) {
                int end = i;
                int count = 0;
                while (end < n && count < digitGroup && kind(text.codePointAt(end)) == DIGIT) {
                    end += Character.charCount(text.codePointAt(end));
                    count++;
                }
                chunk.accept(text.substring(start, end));
                i = end;
            } else {
                int end = endOfRun(text, i, kind);
                chunk.accept(text.substring(start, end));
                i = end;
            }
        }
    }

    static final int LETTER = 0;
    static final int DIGIT = 1;
    static final int SPACE = 2;
    static final int OTHER = 3;

    static int kind(int cp) {
        if (Character.isLetter(cp)) {
            return LETTER;
        }
        int type = Character.getType(cp);
        // Combining marks stay with the letters they decorate.
        if (type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK
                || type == Character.ENCLOSING_MARK) {
            return LETTER;
        }
        if (Character.isDigit(cp)) {
            return DIGIT;
        }
        if (Character.isWhitespace(cp)) {
            return SPACE;
        }
        return OTHER;
    }

    private static int endOfRun(String text, int from, int kind) {
        int i = from;
        int n = text.length();
        while (i < n) {
            int cp = text.codePointAt(i);
            if (kind(cp) != kind) {
                break;
            }
            i += Character.charCount(cp);
        }
        return i;
    }
}
