package dev.agentswarm.core.reward;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Answer text as the official SQuAD, MuSiQue and HotpotQA scorers see it ({@code normalize_answer}):
 * lower case, every character of Python's {@code string.punctuation} removed, the articles
 * {@code \b(a|an|the)\b} replaced by a space, whitespace collapsed; tokens are the pieces between
 * whitespace. Word boundaries and whitespace follow Python 3's Unicode rules, so "éan" keeps its "an"
 * and a no-break space separates tokens, exactly as the Python scorers do.
 */
public final class AnswerText {

    /** Python's string.punctuation: ASCII only; "’" or "–" stay. */
    public static final String PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

    private static final String[] ARTICLES = {"a", "an", "the"};

    private AnswerText() {}

    public static String normalize(String s) {
        if (s == null) return "";
        String lower = s.toLowerCase(Locale.ROOT);
        StringBuilder sb = new StringBuilder(lower.length());
        for (int i = 0; i < lower.length(); i++) {
            char c = lower.charAt(i);
            if (PUNCTUATION.indexOf(c) < 0) sb.append(c);
        }
        return String.join(" ", split(removeArticles(sb)));
    }

    /** The normalised answer's whitespace tokens; none for an empty or punctuation-only answer. */
    public static List<String> tokens(String s) {
        return split(normalize(s));
    }

    /**
     * Python's {@code re.sub(r"\b(a|an|the)\b", " ", s)}: an article between word boundaries, where
     * a word character is Python's ({@code str.isalnum()} or "_", so a combining accent is not one).
     */
    static String removeArticles(CharSequence s) {
        String text = s.toString();
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            int matched = 0;
            if (i == 0 || !isPythonWord(text.codePointBefore(i))) {
                for (String article : ARTICLES) {
                    int end = i + article.length();
                    if (text.startsWith(article, i) && (end == text.length() || !isPythonWord(text.codePointAt(end)))) {
                        matched = article.length();
                        break;
                    }
                }
            }
            if (matched > 0) {
                out.append(' ');
                i += matched;
            } else {
                out.append(text.charAt(i++));
            }
        }
        return out.toString();
    }

    /** Python's {@code \w} on str: letters, digits and numerals of every script, and "_". */
    static boolean isPythonWord(int cp) {
        if (cp == '_' || Character.isLetter(cp)) return true;
        int type = Character.getType(cp);
        return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER || type == Character.OTHER_NUMBER;
    }

    /** Python's {@code str.split()} with no argument: runs of whitespace separate, empty pieces are dropped. */
    static List<String> split(CharSequence s) {
        List<String> out = new ArrayList<>();
        int start = -1;
        for (int i = 0; i <= s.length(); i++) {
            boolean space = i == s.length() || isPythonSpace(s.charAt(i));
            if (!space && start < 0) start = i;
            if (space && start >= 0) {
                out.add(s.subSequence(start, i).toString());
                start = -1;
            }
        }
        return out;
    }

    /** Python's {@code str.isspace()}: Java's whitespace plus the no-break spaces and NEL. */
    static boolean isPythonSpace(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085';
    }
}
