package dev.agentswarm.policy.tokenizer;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Generated text for the tests: English-like prose with tool chatter, and random Unicode. */
final class Corpora {

    private static final String[] WORDS = (
            "the of and to a in is that for it as was with be by on not he this are or his from at which "
            + "but have an they you were her she there been one all we their has would when if so no will "
            + "more can out up who them some into time only new could about other then its over also two "
            + "agent tool call result search weather city temperature file read write query answer model "
            + "policy token episode reward swarm worker message context budget error timeout retry value "
            + "number list name argument function returns because before after while during between under "
            + "people world system program question example different following important however")
            .split(" ");

    private Corpora() {}

    /** Roughly {@code chars} characters of sentences drawn with a skewed word distribution. */
    static List<String> english(long seed, int chars) {
        Random rnd = new Random(seed);
        List<String> docs = new ArrayList<>();
        int total = 0;
        while (total < chars) {
            StringBuilder doc = new StringBuilder();
            int sentences = 1 + rnd.nextInt(6);
            for (int s = 0; s < sentences; s++) {
                int len = 4 + rnd.nextInt(14);
                for (int i = 0; i < len; i++) {
                    // Squaring a uniform draw favours the first words, like real word frequencies.
                    double u = rnd.nextDouble();
                    String word = WORDS[(int) (u * u * WORDS.length)];
                    if (i == 0) {
                        word = Character.toUpperCase(word.charAt(0)) + word.substring(1);
                    } else {
                        doc.append(' ');
                    }
                    doc.append(word);
                    if (rnd.nextInt(12) == 0) {
                        doc.append(rnd.nextBoolean() ? "," : " " + rnd.nextInt(2000));
                    }
                }
                doc.append(rnd.nextInt(8) == 0 ? "?" : ".").append(' ');
            }
            if (rnd.nextInt(4) == 0) {
                doc.append("<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"weather in city ")
                        .append(rnd.nextInt(100)).append("\"}}</tool_call>\n");
            }
            docs.add(doc.toString());
            total += doc.length();
        }
        return docs;
    }

    /** A random well-formed UTF-16 string mixing every kind of text the tokenizer must survive. */
    static String randomText(Random rnd, List<String> specials) {
        StringBuilder sb = new StringBuilder();
        int parts = rnd.nextInt(12);
        for (int p = 0; p < parts; p++) {
            switch (rnd.nextInt(11)) {
                case 0 -> sb.appendCodePoint(32 + rnd.nextInt(95));
                case 1 -> sb.append(" \t\n\r\n  \u00a0\u3000".substring(rnd.nextInt(8)));
                case 2 -> sb.appendCodePoint(0x4E00 + rnd.nextInt(0x5000));
                case 3 -> sb.appendCodePoint(0x1F300 + rnd.nextInt(0x700));
                case 4 -> sb.append('e').appendCodePoint(0x0300 + rnd.nextInt(0x70));
                case 5 -> sb.append('\0');
                case 6 -> sb.append(specials.get(rnd.nextInt(specials.size())));
                case 7 -> {
                    String s = specials.get(rnd.nextInt(specials.size()));
                    sb.append(s, 0, 1 + rnd.nextInt(s.length() - 1));
                }
                case 8 -> {
                    int cp;
                    do {
                        cp = rnd.nextInt(Character.MAX_CODE_POINT + 1);
                    } while (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE);
                    sb.appendCodePoint(cp);
                }
                case 9 -> sb.append(" the").append(rnd.nextInt(100000));
                default -> sb.append("  weather  ");
            }
        }
        return sb.toString();
    }
}
