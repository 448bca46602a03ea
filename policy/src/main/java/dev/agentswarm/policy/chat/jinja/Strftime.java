package dev.agentswarm.policy.chat.jinja;

import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.util.Locale;

/** Python's {@code datetime.strftime} in the C locale, for the {@code strftime_now(fmt)} global (Llama-3.1+'s date line). */
final class Strftime {

    private Strftime() {}

    static String format(LocalDateTime t, String fmt) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < fmt.length(); i++) {
            char c = fmt.charAt(i);
            if (c != '%' || i + 1 >= fmt.length()) {
                sb.append(c);
                continue;
            }
            char k = fmt.charAt(++i);
            boolean noPad = false;
            if (k == '-' && i + 1 < fmt.length()) { // glibc: %-d without padding
                noPad = true;
                k = fmt.charAt(++i);
            }
            String v = switch (k) {
                case 'd' -> pad(t.getDayOfMonth(), 2, noPad);
                case 'm' -> pad(t.getMonthValue(), 2, noPad);
                case 'Y' -> String.valueOf(t.getYear());
                case 'y' -> pad(t.getYear() % 100, 2, noPad);
                case 'H' -> pad(t.getHour(), 2, noPad);
                case 'I' -> pad(t.getHour() % 12 == 0 ? 12 : t.getHour() % 12, 2, noPad);
                case 'M' -> pad(t.getMinute(), 2, noPad);
                case 'S' -> pad(t.getSecond(), 2, noPad);
                case 'f' -> pad(t.getNano() / 1000, 6, false);
                case 'j' -> pad(t.getDayOfYear(), 3, noPad);
                case 'p' -> t.getHour() < 12 ? "AM" : "PM";
                case 'b', 'h' -> t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
                case 'B' -> t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
                case 'a' -> t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
                case 'A' -> t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
                case 'w' -> String.valueOf(t.getDayOfWeek().getValue() % 7);
                case 'u' -> String.valueOf(t.getDayOfWeek().getValue());
                case 'F' -> format(t, "%Y-%m-%d");
                case 'T' -> format(t, "%H:%M:%S");
                case 'D' -> format(t, "%m/%d/%y");
                case 'Z', 'z' -> "";
                case '%' -> "%";
                default -> "%" + (noPad ? "-" : "") + k;
            };
            sb.append(v);
        }
        return sb.toString();
    }

    private static String pad(int v, int width, boolean noPad) {
        String s = String.valueOf(v);
        return noPad ? s : "0".repeat(Math.max(0, width - s.length())) + s;
    }
}
