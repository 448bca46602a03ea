package dev.agentswarm.environments.arithmetic;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a numeric final answer: exactly one number (thousands separators allowed), so an answer that
 * lists several candidates earns nothing; equal to the gold within 1e-6 relative, so a result
 * rounded to a few decimals of a repeating fraction still counts.
 */
final class NumericAnswer {

    private static final Pattern NUMBER = Pattern.compile("-?\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|-?\\d+(?:\\.\\d+)?|-?\\.\\d+");
    private static final BigDecimal TOLERANCE = new BigDecimal("1e-6");

    private NumericAnswer() {}

    static boolean matches(String answer, BigDecimal gold) {
        BigDecimal value = single(answer);
        if (value == null) return false;
        BigDecimal scale = gold.abs().max(BigDecimal.ONE);
        return value.subtract(gold).abs().compareTo(TOLERANCE.multiply(scale, MathContext.DECIMAL64)) <= 0;
    }

    /** The one number in the text, or null when there is none or more than one. */
    static BigDecimal single(String text) {
        if (text == null) return null;
        Matcher m = NUMBER.matcher(text);
        if (!m.find()) return null;
        String first = m.group();
        if (m.find()) return null;
        return new BigDecimal(first.replace(",", ""));
    }
}
