package dev.agentswarm.policy.chat.jinja;

import dev.agentswarm.policy.chat.jinja.Node.*;
import dev.agentswarm.policy.chat.jinja.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Recursive descent over the tokens, with Jinja2's grammar and operator precedence (lowest first):
 * {@code x if c else y}, {@code or}, {@code and}, {@code not}, comparisons and {@code in},
 * {@code + -}, {@code ~}, {@code * / // %}, {@code **}, unary {@code -}, then postfix
 * ({@code .a [i] [a:b:c] (…)}) and filters/tests ({@code |f}, {@code is t}).
 */
final class Parser {

    private static final Set<String> COMPARE = Set.of("==", "!=", "<", "<=", ">", ">=");

    private final List<Token> tokens;
    private int at;

    private Parser(List<Token> tokens) {
        this.tokens = tokens;
    }

    static List<Stmt> parse(String source) {
        Parser p = new Parser(Lexer.lex(source));
        List<Stmt> body = p.body(Set.of());
        if (p.peek().kind() != Kind.EOF) {
            Token t = p.tokens.get(p.at + 1);
            throw new TemplateError("unexpected '{% " + t.text() + " %}' with no block open", t.line());
        }
        return body;
    }

    // ---- token helpers ----

    private Token peek() {
        return tokens.get(at);
    }

    private Token next() {
        return tokens.get(at++);
    }

    private boolean skipOp(String op) {
        if (peek().isOp(op)) {
            at++;
            return true;
        }
        return false;
    }

    private boolean skipName(String name) {
        if (peek().isName(name)) {
            at++;
            return true;
        }
        return false;
    }

    private Token expect(Kind kind, String text, String what) {
        Token t = next();
        if (t.kind() != kind || (text != null && !t.text().equals(text))) {
            throw new TemplateError("expected " + what + " but found " + t, t.line());
        }
        return t;
    }

    private String name(String what) {
        return expect(Kind.NAME, null, what).text();
    }

    // ---- statements ----

    /** Statements up to a block tag whose keyword is in {@code ends}; leaves the parser on that tag's BLOCK_BEGIN. */
    private List<Stmt> body(Set<String> ends) {
        List<Stmt> out = new ArrayList<>();
        while (true) {
            Token t = peek();
            switch (t.kind()) {
                case EOF -> {
                    if (!ends.isEmpty()) {
                        throw new TemplateError("missing {% " + String.join(" or ", ends) + " %} before the end of the template", t.line());
                    }
                    return out;
                }
                case DATA -> out.add(new Text(next().text(), t.line()));
                case VAR_BEGIN -> {
                    next();
                    Expr e = tuple(true);
                    expect(Kind.VAR_END, null, "'}}'");
                    out.add(new Print(e, t.line()));
                }
                case BLOCK_BEGIN -> {
                    Token kw = tokens.get(at + 1);
                    if (kw.kind() == Kind.NAME && ends.contains(kw.text())) return out;
                    if (kw.kind() == Kind.NAME && ends.isEmpty() && kw.text().startsWith("end")) return out;
                    next();
                    statement(out);
                }
                default -> throw new TemplateError("unexpected " + t, t.line());
            }
        }
    }

    private void endTag() {
        expect(Kind.BLOCK_END, null, "'%}'");
    }

    /** Consumes {@code {% name %}}. */
    private void closing(String name) {
        expect(Kind.BLOCK_BEGIN, null, "'{%'");
        expect(Kind.NAME, name, "'" + name + "'");
        endTag();
    }

    private void statement(List<Stmt> out) {
        Token kw = expect(Kind.NAME, null, "a tag name");
        int line = kw.line();
        switch (kw.text()) {
            case "if" -> out.add(ifStatement(line));
            case "for" -> out.add(forStatement(line));
            case "set" -> out.add(setStatement(line));
            case "macro" -> out.add(macro(line));
            case "filter" -> {
                List<FilterCall> filters = filterChain(true);
                endTag();
                List<Stmt> b = body(Set.of("endfilter"));
                closing("endfilter");
                out.add(new FilterBlock(filters, b, line));
            }
            case "break" -> {
                endTag();
                out.add(new Break(line));
            }
            case "continue" -> {
                endTag();
                out.add(new Continue(line));
            }
            case "generation" -> { // transformers' marker for assistant text: renders its body as is
                endTag();
                out.addAll(body(Set.of("endgeneration")));
                closing("endgeneration");
            }
            default -> throw new TemplateError("unknown or unsupported tag '" + kw.text() + "'", line);
        }
    }

    private Stmt ifStatement(int line) {
        List<Expr> conditions = new ArrayList<>();
        List<List<Stmt>> bodies = new ArrayList<>();
        conditions.add(tuple(false));
        endTag();
        List<Stmt> orElse = List.of();
        while (true) {
            bodies.add(body(Set.of("elif", "else", "endif")));
            expect(Kind.BLOCK_BEGIN, null, "'{%'");
            String kw = name("elif, else or endif");
            if (kw.equals("elif")) {
                conditions.add(tuple(false));
                endTag();
            } else if (kw.equals("else")) {
                endTag();
                orElse = body(Set.of("endif"));
                closing("endif");
                break;
            } else {
                endTag();
                break;
            }
        }
        return new If(conditions, bodies, orElse, line);
    }

    private Stmt forStatement(int line) {
        List<String> targets = new ArrayList<>();
        boolean paren = skipOp("(");
        do {
            targets.add(name("a loop variable"));
        } while (skipOp(","));
        if (paren) expect(Kind.OP, ")", "')'");
        expect(Kind.NAME, "in", "'in'");
        Expr iterable = tuple(false);
        Expr filter = null;
        if (skipName("if")) filter = expression(true);
        if (peek().isName("recursive")) throw new TemplateError("recursive loops are not supported", peek().line());
        endTag();
        List<Stmt> body = body(Set.of("else", "endfor"));
        List<Stmt> orElse = List.of();
        expect(Kind.BLOCK_BEGIN, null, "'{%'");
        if (name("else or endfor").equals("else")) {
            endTag();
            orElse = body(Set.of("endfor"));
            closing("endfor");
        } else {
            endTag();
        }
        return new For(targets, iterable, filter, body, orElse, line);
    }

    private Stmt setStatement(int line) {
        List<String> targets = new ArrayList<>();
        String attribute = null;
        targets.add(name("a variable name"));
        if (skipOp(".")) {
            attribute = name("an attribute name");
        } else {
            while (skipOp(",")) targets.add(name("a variable name"));
        }
        if (skipOp("=")) {
            Expr value = tuple(true);
            endTag();
            return new Node.Set(targets, attribute, value, line);
        }
        if (attribute != null || targets.size() > 1) throw new TemplateError("expected '=' in set", line);
        List<FilterCall> filters = peek().isOp("|") ? filterChain(false) : List.of();
        endTag();
        List<Stmt> b = body(Set.of("endset"));
        closing("endset");
        return new SetBlock(targets.get(0), b, filters, line);
    }

    private Stmt macro(int line) {
        String name = name("a macro name");
        List<String> params = new ArrayList<>();
        List<Expr> defaults = new ArrayList<>();
        expect(Kind.OP, "(", "'('");
        while (!skipOp(")")) {
            if (!params.isEmpty()) expect(Kind.OP, ",", "','");
            if (skipOp(")")) break;
            params.add(name("a parameter name"));
            defaults.add(skipOp("=") ? expression(true) : null);
        }
        endTag();
        List<Stmt> b = body(Set.of("endmacro"));
        closing("endmacro");
        return new Macro(name, params, defaults, b, line);
    }

    // ---- expressions ----

    /** An expression, or a bare tuple {@code a, b} (as after {@code set x =} or in {@code {{ }}}). */
    private Expr tuple(boolean withCondExpr) {
        int line = peek().line();
        Expr first = expression(withCondExpr);
        if (!peek().isOp(",")) return first;
        List<Expr> items = new ArrayList<>(List.of(first));
        while (skipOp(",")) {
            if (peek().kind() == Kind.BLOCK_END || peek().kind() == Kind.VAR_END || peek().isName("if")) break;
            items.add(expression(withCondExpr));
        }
        return new TupleExpr(items, line);
    }

    Expr expression(boolean withCondExpr) {
        return withCondExpr ? condExpr() : or();
    }

    private Expr condExpr() {
        Expr e = or();
        while (peek().isName("if")) {
            int line = next().line();
            Expr cond = or();
            Expr orElse = skipName("else") ? condExpr() : null;
            e = new CondExpr(cond, e, orElse, line);
        }
        return e;
    }

    private Expr or() {
        Expr e = and();
        while (peek().isName("or")) {
            int line = next().line();
            e = new Or(e, and(), line);
        }
        return e;
    }

    private Expr and() {
        Expr e = not();
        while (peek().isName("and")) {
            int line = next().line();
            e = new And(e, not(), line);
        }
        return e;
    }

    private Expr not() {
        if (peek().isName("not")) {
            int line = next().line();
            return new Unary("not", not(), line);
        }
        return compare();
    }

    private Expr compare() {
        int line = peek().line();
        Expr first = math1();
        List<String> ops = new ArrayList<>();
        List<Expr> rest = new ArrayList<>();
        while (true) {
            Token t = peek();
            if (t.kind() == Kind.OP && COMPARE.contains(t.text())) {
                next();
                ops.add(t.text());
            } else if (t.isName("in")) {
                next();
                ops.add("in");
            } else if (t.isName("not") && tokens.get(at + 1).isName("in")) {
                at += 2;
                ops.add("not in");
            } else {
                break;
            }
            rest.add(math1());
        }
        return ops.isEmpty() ? first : new Compare(first, ops, rest, line);
    }

    private Expr math1() {
        Expr e = concat();
        while (peek().isOp("+") || peek().isOp("-")) {
            Token op = next();
            e = new Binary(op.text(), e, concat(), op.line());
        }
        return e;
    }

    private Expr concat() {
        Expr e = math2();
        while (peek().isOp("~")) {
            int line = next().line();
            e = new Binary("~", e, math2(), line);
        }
        return e;
    }

    private Expr math2() {
        Expr e = pow();
        while (peek().isOp("*") || peek().isOp("/") || peek().isOp("//") || peek().isOp("%")) {
            Token op = next();
            e = new Binary(op.text(), e, pow(), op.line());
        }
        return e;
    }

    private Expr pow() {
        Expr e = unary(true);
        while (peek().isOp("**")) {
            int line = next().line();
            e = new Binary("**", e, unary(true), line);
        }
        return e;
    }

    private Expr unary(boolean withFilter) {
        Token t = peek();
        Expr e;
        if (t.isOp("-") || t.isOp("+")) {
            next();
            e = new Unary(t.text(), unary(false), t.line());
        } else {
            e = primary();
        }
        e = postfix(e);
        return withFilter ? filterAndTests(e) : e;
    }

    private Expr primary() {
        Token t = next();
        int line = t.line();
        switch (t.kind()) {
            case NAME -> {
                return switch (t.text()) {
                    case "true", "True" -> new Literal(Boolean.TRUE, line);
                    case "false", "False" -> new Literal(Boolean.FALSE, line);
                    case "none", "None" -> new Literal(null, line);
                    default -> new Name(t.text(), line);
                };
            }
            case STRING -> {
                StringBuilder sb = new StringBuilder(t.text());
                while (peek().kind() == Kind.STRING) sb.append(next().text());
                return new Literal(sb.toString(), line);
            }
            case INT -> {
                return new Literal(Py.parseInt(t.text()), line);
            }
            case FLOAT -> {
                return new Literal(Double.parseDouble(t.text()), line);
            }
            case OP -> {
                switch (t.text()) {
                    case "(" -> {
                        if (skipOp(")")) return new TupleExpr(List.of(), line);
                        Expr first = expression(true);
                        if (skipOp(")")) return first;
                        List<Expr> items = new ArrayList<>(List.of(first));
                        while (skipOp(",")) {
                            if (peek().isOp(")")) break;
                            items.add(expression(true));
                        }
                        expect(Kind.OP, ")", "')'");
                        return new TupleExpr(items, line);
                    }
                    case "[" -> {
                        List<Expr> items = new ArrayList<>();
                        while (!skipOp("]")) {
                            if (!items.isEmpty()) expect(Kind.OP, ",", "',' or ']'");
                            if (skipOp("]")) break;
                            items.add(expression(true));
                        }
                        return new ListExpr(items, line);
                    }
                    case "{" -> {
                        List<Expr> keys = new ArrayList<>();
                        List<Expr> values = new ArrayList<>();
                        while (!skipOp("}")) {
                            if (!keys.isEmpty()) expect(Kind.OP, ",", "',' or '}'");
                            if (skipOp("}")) break;
                            keys.add(expression(true));
                            expect(Kind.OP, ":", "':'");
                            values.add(expression(true));
                        }
                        return new DictExpr(keys, values, line);
                    }
                    default -> { }
                }
            }
            default -> { }
        }
        throw new TemplateError("unexpected " + t + " in an expression", line);
    }

    private Expr postfix(Expr e) {
        while (true) {
            Token t = peek();
            if (t.isOp(".")) {
                next();
                Token n = next();
                if (n.kind() == Kind.NAME) e = new GetAttr(e, n.text(), t.line());
                else if (n.kind() == Kind.INT) e = new GetItem(e, new Literal(Py.parseInt(n.text()), t.line()), t.line());
                else throw new TemplateError("expected an attribute name after '.' but found " + n, n.line());
            } else if (t.isOp("[")) {
                next();
                e = subscript(e, t.line());
            } else if (t.isOp("(")) {
                e = call(e);
            } else {
                return e;
            }
        }
    }

    private Expr subscript(Expr target, int line) {
        Expr[] parts = new Expr[3];
        int part = 0;
        boolean slice = false;
        while (!peek().isOp("]")) {
            if (skipOp(":")) {
                slice = true;
                part++;
                if (part > 2) throw new TemplateError("too many ':' in a slice", line);
                continue;
            }
            if (parts[part] != null) throw new TemplateError("expected ':' or ']' in a subscript", peek().line());
            parts[part] = expression(true);
            if (!slice && peek().isOp(",")) { // obj[a, b]: a tuple key
                List<Expr> items = new ArrayList<>(List.of(parts[0]));
                while (skipOp(",") && !peek().isOp("]")) items.add(expression(true));
                parts[0] = new TupleExpr(items, line);
            }
        }
        next();
        if (!slice) {
            if (parts[0] == null) throw new TemplateError("empty subscript '[]'", line);
            return new GetItem(target, parts[0], line);
        }
        return new Slice(target, parts[0], parts[1], parts[2], line);
    }

    private Call call(Expr callee) {
        int line = expect(Kind.OP, "(", "'('").line();
        List<Expr> args = new ArrayList<>();
        List<String> kwNames = new ArrayList<>();
        List<Expr> kwValues = new ArrayList<>();
        arguments(args, kwNames, kwValues);
        return new Call(callee, args, kwNames, kwValues, line);
    }

    /** After '(' up to and including ')': positional then keyword arguments. */
    private void arguments(List<Expr> args, List<String> kwNames, List<Expr> kwValues) {
        boolean first = true;
        while (!skipOp(")")) {
            if (!first) {
                expect(Kind.OP, ",", "',' or ')'");
                if (skipOp(")")) break;
            }
            first = false;
            if (peek().kind() == Kind.NAME && tokens.get(at + 1).isOp("=")) {
                kwNames.add(next().text());
                next();
                kwValues.add(expression(true));
            } else {
                if (!kwNames.isEmpty()) throw new TemplateError("positional argument after keyword argument", peek().line());
                args.add(expression(true));
            }
        }
    }

    private Expr filterAndTests(Expr e) {
        while (true) {
            Token t = peek();
            if (t.isOp("|")) {
                next();
                e = new Filter(e, filterCall(), t.line());
            } else if (t.isName("is")) {
                next();
                e = test(e, t.line());
            } else if (t.isOp("(")) {
                e = call(e);
            } else {
                return e;
            }
        }
    }

    private List<FilterCall> filterChain(boolean leadingNameOnly) {
        List<FilterCall> out = new ArrayList<>();
        if (leadingNameOnly) out.add(filterCall());
        while (skipOp("|")) out.add(filterCall());
        return out;
    }

    private FilterCall filterCall() {
        Token n = expect(Kind.NAME, null, "a filter name");
        String name = n.text();
        while (peek().isOp(".") && tokens.get(at + 1).kind() == Kind.NAME) {
            next();
            name += "." + next().text();
        }
        List<Expr> args = new ArrayList<>();
        List<String> kwNames = new ArrayList<>();
        List<Expr> kwValues = new ArrayList<>();
        if (skipOp("(")) arguments(args, kwNames, kwValues);
        return new FilterCall(name, args, kwNames, kwValues, n.line());
    }

    private Expr test(Expr value, int line) {
        boolean negated = skipName("not");
        String name = name("a test name");
        while (peek().isOp(".") && tokens.get(at + 1).kind() == Kind.NAME) {
            next();
            name += "." + next().text();
        }
        List<Expr> args = new ArrayList<>();
        Token t = peek();
        if (t.isOp("(")) {
            next();
            List<String> kwNames = new ArrayList<>();
            arguments(args, kwNames, new ArrayList<>());
            if (!kwNames.isEmpty()) throw new TemplateError("tests take no keyword arguments", line);
        } else if ((t.kind() == Kind.NAME || t.kind() == Kind.STRING || t.kind() == Kind.INT || t.kind() == Kind.FLOAT
                || t.isOp("[") || t.isOp("{") || t.isOp("(") || t.isOp("-"))
                && !t.isName("else") && !t.isName("or") && !t.isName("and")) {
            if (t.isName("is")) throw new TemplateError("tests cannot be chained with 'is'", t.line());
            if (!t.isOp("-")) args.add(postfix(primary()));
        }
        return new Test(value, name, args, negated, line);
    }
}
