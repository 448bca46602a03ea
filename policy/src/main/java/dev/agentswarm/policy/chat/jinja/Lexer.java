package dev.agentswarm.policy.chat.jinja;

import dev.agentswarm.policy.chat.jinja.Token.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits a template into text and tag tokens with Jinja2's whitespace rules as Hugging Face sets
 * them: {@code trim_blocks} (the newline after a block or comment tag goes), {@code lstrip_blocks}
 * (spaces and tabs before a block or comment tag on its own line go), {@code -} on a tag strips all
 * whitespace on that side, {@code +} turns the two options off for that tag. Newlines become
 * {@code \n} and one trailing newline of the template is dropped, as Jinja2 does by default.
 */
final class Lexer {

    private static final Pattern RAW_BEGIN = Pattern.compile("\\{%([-+]?)\\s*raw\\s*(-?)%\\}");
    private static final Pattern RAW_END = Pattern.compile("\\{%([-+]?)\\s*endraw\\s*([-+]?)%\\}");
    private static final List<String> OPERATORS2 = List.of("//", "**", "==", "!=", "<=", ">=");
    private static final String OPERATORS1 = "+-*/%~<>=()[]{},.:|";

    private final String src;
    private final List<Token> out = new ArrayList<>();
    private final int newlineCount;
    private final int[] newlinePositions;
    private int pos;
    private boolean lineStarting = true;

    private Lexer(String src) {
        this.src = src;
        int[] nl = new int[16];
        int n = 0;
        for (int i = 0; i < src.length(); i++) {
            if (src.charAt(i) == '\n') {
                if (n == nl.length) nl = Arrays.copyOf(nl, n * 2);
                nl[n++] = i;
            }
        }
        this.newlineCount = n;
        this.newlinePositions = nl;
    }

    static List<Token> lex(String source) {
        String s = source.replace("\r\n", "\n").replace('\r', '\n');
        if (s.endsWith("\n")) s = s.substring(0, s.length() - 1);
        Lexer lx = new Lexer(s);
        lx.run();
        return lx.out;
    }

    private int lineAt(int at) {
        int i = Arrays.binarySearch(newlinePositions, 0, newlineCount, at);
        return (i >= 0 ? i : -i - 1) + 1;
    }

    private void run() {
        int n = src.length();
        while (pos < n) {
            int tag = nextTag(pos);
            if (tag < 0) {
                emit(Kind.DATA, src.substring(pos), pos);
                break;
            }
            String data = src.substring(pos, tag);
            char kind = src.charAt(tag + 1);
            char sign = tag + 2 < n ? src.charAt(tag + 2) : 0;
            if (sign == '-') {
                data = Py.rstrip(data);
            } else if (sign != '+' && kind != '{') {
                int l = data.lastIndexOf('\n') + 1;
                if ((l > 0 || lineStarting) && l < data.length() && blankNoNewline(data, l)) data = data.substring(0, l);
            }
            if (!data.isEmpty()) emit(Kind.DATA, data, pos);
            if (kind == '%') {
                Matcher raw = RAW_BEGIN.matcher(src).region(tag, n);
                if (raw.lookingAt()) {
                    raw(raw);
                    continue;
                }
            }
            pos = tag + 2 + (sign == '-' || sign == '+' ? 1 : 0);
            switch (kind) {
                case '#' -> comment(tag);
                case '{' -> tag(Kind.VAR_BEGIN, Kind.VAR_END, "}}", tag);
                default -> tag(Kind.BLOCK_BEGIN, Kind.BLOCK_END, "%}", tag);
            }
        }
        out.add(new Token(Kind.EOF, "", lineAt(n)));
    }

    private int nextTag(int from) {
        int i = from;
        while ((i = src.indexOf('{', i)) >= 0 && i + 1 < src.length()) {
            char c = src.charAt(i + 1);
            if (c == '{' || c == '%' || c == '#') return i;
            i++;
        }
        return -1;
    }

    private static boolean blankNoNewline(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\n' || !Py.isSpace(c)) return false;
        }
        return true;
    }

    private void emit(Kind kind, String text, int at) {
        out.add(new Token(kind, text, lineAt(at)));
    }

    /** After a closing delimiter at {@code end}: {@code -} strips all whitespace, else trim_blocks drops one newline. */
    private void close(int end, char sign, boolean trimBlocks) {
        int p = end;
        if (sign == '-') {
            while (p < src.length() && Py.isSpace(src.charAt(p))) p++;
        } else if (sign != '+' && trimBlocks && p < src.length() && src.charAt(p) == '\n') {
            p++;
        }
        lineStarting = p > 0 && src.charAt(p - 1) == '\n';
        pos = p;
    }

    private void comment(int start) {
        int end = src.indexOf("#}", pos);
        if (end < 0) throw new TemplateError("comment not closed: missing '#}'", lineAt(start));
        char sign = end > pos ? src.charAt(end - 1) : 0;
        close(end + 2, sign, true);
    }

    private void raw(Matcher begin) {
        int start = begin.start();
        Matcher end = RAW_END.matcher(src).region(begin.end(), src.length());
        if (!end.find()) throw new TemplateError("raw block not closed: missing '{% endraw %}'", lineAt(start));
        String body = src.substring(begin.end(), end.start());
        if (begin.group(2).equals("-")) body = Py.lstrip(body);
        if (end.group(1).equals("-")) body = Py.rstrip(body);
        if (!body.isEmpty()) emit(Kind.DATA, body, begin.end());
        String closeSign = end.group(2);
        close(end.end(), closeSign.isEmpty() ? 0 : closeSign.charAt(0), true);
    }

    private void tag(Kind open, Kind closeKind, String closer, int start) {
        out.add(new Token(open, src.substring(start, pos), lineAt(start)));
        int depth = 0;
        int n = src.length();
        while (true) {
            while (pos < n && Py.isSpace(src.charAt(pos))) pos++;
            if (pos >= n) throw new TemplateError("tag not closed: missing '" + closer + "'", lineAt(start));
            if (depth == 0) {
                char c = src.charAt(pos);
                if ((c == '-' || c == '+') && src.startsWith(closer, pos + 1)) {
                    out.add(new Token(closeKind, closer, lineAt(pos)));
                    close(pos + 3, c, closeKind == Kind.BLOCK_END);
                    return;
                }
                if (src.startsWith(closer, pos)) {
                    out.add(new Token(closeKind, closer, lineAt(pos)));
                    close(pos + 2, (char) 0, closeKind == Kind.BLOCK_END);
                    return;
                }
            }
            int before = pos;
            char c = src.charAt(pos);
            if (c == '\'' || c == '"') {
                emit(Kind.STRING, string(c), before);
            } else if (Character.isDigit(c)) {
                number(before);
            } else if (Character.isLetter(c) || c == '_') {
                int e = pos;
                while (e < n && (Character.isLetterOrDigit(src.charAt(e)) || src.charAt(e) == '_')) e++;
                emit(Kind.NAME, src.substring(pos, e), before);
                pos = e;
            } else {
                String op = null;
                for (String o : OPERATORS2) if (src.startsWith(o, pos)) op = o;
                if (op == null && OPERATORS1.indexOf(c) >= 0) op = String.valueOf(c);
                if (op == null) throw new TemplateError("unexpected character '" + c + "'", lineAt(pos));
                if (op.equals("(") || op.equals("[") || op.equals("{")) depth++;
                if (op.equals(")") || op.equals("]") || op.equals("}")) depth = Math.max(0, depth - 1);
                emit(Kind.OP, op, before);
                pos += op.length();
            }
        }
    }

    private void number(int at) {
        int n = src.length();
        int e = pos;
        while (e < n && (Character.isDigit(src.charAt(e)) || src.charAt(e) == '_')) e++;
        boolean isFloat = false;
        if (e + 1 < n && src.charAt(e) == '.' && Character.isDigit(src.charAt(e + 1))) {
            isFloat = true;
            e++;
            while (e < n && (Character.isDigit(src.charAt(e)) || src.charAt(e) == '_')) e++;
        }
        if (e < n && (src.charAt(e) == 'e' || src.charAt(e) == 'E')) {
            int f = e + 1;
            if (f < n && (src.charAt(f) == '+' || src.charAt(f) == '-')) f++;
            if (f < n && Character.isDigit(src.charAt(f))) {
                isFloat = true;
                e = f;
                while (e < n && Character.isDigit(src.charAt(e))) e++;
            }
        }
        emit(isFloat ? Kind.FLOAT : Kind.INT, src.substring(pos, e).replace("_", ""), at);
        pos = e;
    }

    /** A quoted literal with Python's escapes; {@code pos} is on the opening quote. */
    private String string(char quote) {
        int start = pos;
        StringBuilder sb = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= src.length()) throw new TemplateError("string not closed", lineAt(start));
            char c = src.charAt(pos++);
            if (c == quote) return sb.toString();
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= src.length()) throw new TemplateError("string not closed", lineAt(start));
            char e = src.charAt(pos++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'v' -> sb.append('\u000b');
                case 'a' -> sb.append('\u0007');
                case '0' -> sb.append('\0');
                case '\\', '\'', '"' -> sb.append(e);
                case '\n' -> { } // a backslash-newline continues the line
                case 'x' -> sb.appendCodePoint(hex(2, start));
                case 'u' -> sb.appendCodePoint(hex(4, start));
                case 'U' -> sb.appendCodePoint(hex(8, start));
                default -> sb.append('\\').append(e);
            }
        }
    }

    private int hex(int digits, int start) {
        if (pos + digits > src.length()) throw new TemplateError("bad escape in string", lineAt(start));
        try {
            int v = Integer.parseInt(src.substring(pos, pos + digits), 16);
            pos += digits;
            return v;
        } catch (NumberFormatException e) {
            throw new TemplateError("bad escape in string", lineAt(start));
        }
    }
}
