package dev.agentswarm.policy.chat.jinja;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A compiled Jinja2 template, rendered with Python Jinja2's semantics for the subset that model chat
 * templates use, in the environment Hugging Face transformers renders them in: {@code trim_blocks},
 * {@code lstrip_blocks}, loop controls, {@code raise_exception(msg)}, {@code strftime_now(fmt)},
 * {@code namespace(…)}, {@code range(…)}, {@code dict(…)}, and a {@code tojson} that is Python's
 * {@code json.dumps} with {@code ensure_ascii=False}. Why our own: Jinjava (the Java Jinja engine)
 * does not parse {@code messages[::-1]}, lacks Python's {@code str.lstrip(chars)}/{@code rstrip(chars)},
 * and differs in whitespace control, so it cannot render Qwen3's template byte-exactly.
 */
public final class JinjaTemplate {

    private final List<Node.Stmt> body;
    private final Supplier<LocalDateTime> clock;

    private JinjaTemplate(List<Node.Stmt> body, Supplier<LocalDateTime> clock) {
        this.body = body;
        this.clock = clock;
    }

    /** Parses {@code source}; a syntax error is a {@link TemplateError} naming the line. */
    public static JinjaTemplate compile(String source) {
        return new JinjaTemplate(Parser.parse(source), LocalDateTime::now);
    }

    /** The same template with another clock for {@code strftime_now} (tests pin the date). */
    public JinjaTemplate withClock(Supplier<LocalDateTime> clock) {
        return new JinjaTemplate(body, clock);
    }

    /**
     * Renders with these variables. Values may be Jackson {@code JsonNode}s, strings, numbers,
     * booleans, null, lists and maps of those; a missing variable is Jinja2's undefined.
     */
    public String render(Map<String, ?> variables) {
        Renderer.Scope globals = new Renderer.Scope(null);
        globals.vars.put("raise_exception", (PyCallable) (a, k) -> {
            throw new TemplateError(a.isEmpty() ? "raise_exception called" : Py.str(a.get(0)));
        });
        globals.vars.put("strftime_now", (PyCallable) (a, k) -> Strftime.format(clock.get(), Py.str(a.isEmpty() ? "" : a.get(0))));
        globals.vars.put("namespace", (PyCallable) (a, k) -> {
            Namespace ns = new Namespace();
            for (Object o : a) {
                if (o instanceof Map<?, ?> m) m.forEach((key, v) -> ns.attributes.put(Py.str(key), v));
            }
            ns.attributes.putAll(k);
            return ns;
        });
        globals.vars.put("range", (PyCallable) (a, k) -> range(a));
        globals.vars.put("dict", (PyCallable) (a, k) -> {
            Map<Object, Object> out = new java.util.LinkedHashMap<>();
            if (!a.isEmpty() && a.get(0) instanceof Map<?, ?> m) out.putAll(m);
            out.putAll(k);
            return out;
        });
        Renderer.Scope scope = new Renderer.Scope(globals);
        variables.forEach((name, v) -> scope.vars.put(name, Py.fromJava(v)));
        StringBuilder out = new StringBuilder();
        new Renderer().render(body, scope, out);
        return out.toString();
    }

    private static List<Object> range(List<Object> a) {
        long start = 0;
        long stop;
        long step = 1;
        if (a.size() == 1) {
            stop = Py.toLong(a.get(0));
        } else if (a.size() >= 2) {
            start = Py.toLong(a.get(0));
            stop = Py.toLong(a.get(1));
            if (a.size() > 2) step = Py.toLong(a.get(2));
        } else {
            throw new TemplateError("range expected at least 1 argument, got 0");
        }
        if (step == 0) throw new TemplateError("range() arg 3 must not be zero");
        List<Object> out = new ArrayList<>();
        for (long i = start; step > 0 ? i < stop : i > stop; i += step) {
            if (out.size() > 100_000) throw new TemplateError("range too big for a template");
            out.add(i);
        }
        return out;
    }
}
