package dev.agentswarm.policy.parity;

import java.util.List;
import java.util.Random;

/**
 * Strings generated from a seed to stress a tokenizer's pre-tokenizer and byte handling: every
 * Unicode plane in use (ASCII, Latin, Greek, Cyrillic, RTL Arabic and Hebrew, Indic, CJK, Hangul,
 * emoji and ZWJ sequences, math letters, supplementary CJK), combining marks, whitespace runs
 * (spaces, tabs, blank lines, CRLF, no-break and ideographic spaces), long digit runs (Llama-3
 * and Qwen split digits in groups), code, and look-alikes of special tokens.
 */
final class TextCorpus {

    private static final int[][] RANGES = {
            {0x20, 0x7e}, {0xa0, 0xff}, {0x100, 0x17f}, {0x370, 0x3ff}, {0x400, 0x4ff}, {0x590, 0x5ff}, {0x600, 0x6ff},
            {0x900, 0x97f}, {0xe00, 0xe7f}, {0x3040, 0x30ff}, {0x4e00, 0x9fff}, {0xac00, 0xd7a3}, {0x1f300, 0x1faff},
            {0x1d400, 0x1d7ff}, {0x20000, 0x2a6df}, {0x300, 0x36f}, {0x2000, 0x206f}, {0xff00, 0xffef}, {0x1, 0x1f}};

    private static final List<String> PIECES = List.of(
            " ", "  ", "    ", "\t", "\t\t", "\n", "\n\n", "\n\n\n", "\r\n", "\u00a0", "\u3000", " \n ",
            "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<tool_call>", "<|eot_id|>",
            "<|begin_of_text|>", "<start_of_turn>", "<end_of_turn>", "<bos>", "<|im_start", "im_end|>", "<|", "|>",
            "👩‍👩‍👧‍👦", "🏳️‍🌈", "❤️", "é", "e\u0301", "Å", "ﬁ", "ß", "İ", "ǅ",
            "def f(x):\n    return x ** 2\n", "for (int i = 0; i < n; i++) {\n\tsum += a[i];\n}", "SELECT * FROM t WHERE x = 'y';",
            "{\"key\": [1, 2.50, null, true]}", "https://example.org/a?b=c&d=e#f", "C:\\path\\to\\file.txt",
            "don't", "I'm", "we'll", "'s", "’re", "...", "!!!", "???", "—", "–", "«»", "“”");

    private final Random random;

    TextCorpus(long seed) {
        this.random = new Random(seed);
    }

    String next() {
        StringBuilder sb = new StringBuilder();
        int parts = 1 + random.nextInt(8);
        for (int p = 0; p < parts; p++) {
            switch (random.nextInt(6)) {
                case 0 -> sb.append(PIECES.get(random.nextInt(PIECES.size())));
                case 1 -> {
                    int digits = 1 + random.nextInt(40);
                    for (int i = 0; i < digits; i++) sb.append((char) ('0' + random.nextInt(10)));
                    if (random.nextInt(4) == 0) sb.append('.').append(random.nextInt(1000));
                }
                case 2 -> word(sb, new int[] {'a', 'z'});
                default -> word(sb, RANGES[random.nextInt(RANGES.length)]);
            }
        }
        return sb.toString();
    }

    private void word(StringBuilder sb, int[] range) {
        int n = 1 + random.nextInt(12);
        for (int i = 0; i < n; i++) {
            int c = range[0] + random.nextInt(range[1] - range[0] + 1);
            if (c >= 0xd800 && c <= 0xdfff) c = 'x';
            sb.appendCodePoint(c);
        }
        if (random.nextInt(3) == 0) sb.append(' ');
    }
}
