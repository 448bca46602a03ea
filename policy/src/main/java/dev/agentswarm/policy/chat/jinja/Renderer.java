package dev.agentswarm.policy.chat.jinja;

import dev.agentswarm.policy.chat.jinja.Node.*;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Walks the parsed template and writes its output. Scoping follows Jinja2: a {@code for} body
 * (each iteration) and a macro call have their own variables, {@code if} has none, so a
 * {@code set} inside a loop is invisible after it unless it goes through a {@code namespace}.
 */
final class Renderer {

    /** One level of variables; lookups walk outwards. */
    static final class Scope {
        final Map<String, Object> vars = new HashMap<>();
        final Scope parent;

        Scope(Scope parent) {
            this.parent = parent;
        }

        boolean has(String name) {
            for (Scope s = this; s != null; s = s.parent) if (s.vars.containsKey(name)) return true;
            return false;
        }

        Object get(String name) {
            for (Scope s = this; s != null; s = s.parent) {
                if (s.vars.containsKey(name)) return s.vars.get(name);
            }
            return new Undefined("'" + name + "'");
        }
    }

    private static final class BreakLoop extends RuntimeException {
        BreakLoop() {
            super(null, null, false, false);
        }
    }

    private static final class ContinueLoop extends RuntimeException {
        ContinueLoop() {
            super(null, null, false, false);
        }
    }

    private static final BreakLoop BREAK = new BreakLoop();
    private static final ContinueLoop CONTINUE = new ContinueLoop();

    private int loopDepth;

    void render(List<Stmt> body, Scope scope, StringBuilder out) {
        for (Stmt s : body) execute(s, scope, out);
    }

    private void execute(Stmt s, Scope scope, StringBuilder out) {
        try {
            if (s instanceof Text t) {
                out.append(t.text());
            } else if (s instanceof Print p) {
                out.append(Py.str(eval(p.value(), scope)));
            } else if (s instanceof If i) {
                for (int k = 0; k < i.conditions().size(); k++) {
                    if (Py.truthy(eval(i.conditions().get(k), scope))) {
                        render(i.bodies().get(k), scope, out);
                        return;
                    }
                }
                render(i.orElse(), scope, out);
            } else if (s instanceof For f) {
                forLoop(f, scope, out);
            } else if (s instanceof Node.Set set) {
                assign(set, scope);
            } else if (s instanceof SetBlock sb) {
                StringBuilder captured = new StringBuilder();
                render(sb.body(), scope, captured);
                Object v = captured.toString();
                for (FilterCall fc : sb.filters()) v = filter(fc, v, scope);
                scope.vars.put(sb.target(), v);
            } else if (s instanceof Macro m) {
                scope.vars.put(m.name(), macro(m, scope));
            } else if (s instanceof FilterBlock fb) {
                StringBuilder captured = new StringBuilder();
                render(fb.body(), scope, captured);
                Object v = captured.toString();
                for (FilterCall fc : fb.filters()) v = filter(fc, v, scope);
                out.append(Py.str(v));
            } else if (s instanceof Break b) {
                if (loopDepth == 0) throw new TemplateError("'break' outside a loop", b.line());
                throw BREAK;
            } else if (s instanceof Continue c) {
                if (loopDepth == 0) throw new TemplateError("'continue' outside a loop", c.line());
                throw CONTINUE;
            }
        } catch (TemplateError e) {
            throw e.at(s.line());
        } catch (BreakLoop | ContinueLoop control) {
            throw control;
        } catch (RuntimeException e) {
            throw new TemplateError(e.getClass().getSimpleName() + ": " + e.getMessage(), s.line());
        }
    }

    private void forLoop(For f, Scope scope, StringBuilder out) {
        List<Object> items = Py.iterate(eval(f.iterable(), scope));
        if (f.filter() != null) {
            List<Object> kept = new ArrayList<>();
            for (Object item : items) {
                Scope probe = new Scope(scope);
                bind(f.targets(), item, probe, f.line());
                if (Py.truthy(eval(f.filter(), probe))) kept.add(item);
            }
            items = kept;
        }
        if (items.isEmpty()) {
            render(f.orElse(), scope, out);
            return;
        }
        LoopInfo loop = new LoopInfo(items, 0);
        loopDepth++;
        try {
            for (int i = 0; i < items.size(); i++) {
                loop.index0 = i;
                Scope iteration = new Scope(scope);
                iteration.vars.put("loop", loop);
                bind(f.targets(), items.get(i), iteration, f.line());
                try {
                    render(f.body(), iteration, out);
                } catch (ContinueLoop c) {
                    // next item
                } catch (BreakLoop b) {
                    break;
                }
            }
        } finally {
            loopDepth--;
        }
    }

    private static void bind(List<String> targets, Object value, Scope scope, int line) {
        if (targets.size() == 1) {
            scope.vars.put(targets.get(0), value);
            return;
        }
        List<Object> parts = Py.iterate(value);
        if (parts.size() != targets.size()) {
            throw new TemplateError("cannot unpack " + parts.size() + " values into " + targets.size() + " names", line);
        }
        for (int i = 0; i < targets.size(); i++) scope.vars.put(targets.get(i), parts.get(i));
    }

    private void assign(Node.Set set, Scope scope) {
        Object value = eval(set.value(), scope);
        if (set.attribute() != null) {
            Object target = scope.get(set.targets().get(0));
            if (!(target instanceof Namespace ns)) {
                throw new TemplateError("cannot assign attribute on non-namespace object '" + set.targets().get(0) + "'", set.line());
            }
            ns.attributes.put(set.attribute(), value);
            return;
        }
        bind(set.targets(), value, scope, set.line());
    }

    private PyCallable macro(Macro m, Scope definedIn) {
        return (args, kwargs) -> {
            Scope call = new Scope(definedIn);
            for (int i = 0; i < m.params().size(); i++) {
                String p = m.params().get(i);
                Object v;
                if (i < args.size()) v = args.get(i);
                else if (kwargs.containsKey(p)) v = kwargs.get(p);
                else if (m.defaults().get(i) != null) v = eval(m.defaults().get(i), call);
                else v = new Undefined("'" + p + "'");
                call.vars.put(p, v);
            }
            if (args.size() > m.params().size()) {
                call.vars.put("varargs", new ArrayList<>(args.subList(m.params().size(), args.size())));
            }
            StringBuilder sb = new StringBuilder();
            int depth = loopDepth;
            loopDepth = 0;
            try {
                render(m.body(), call, sb);
            } finally {
                loopDepth = depth;
            }
            return sb.toString();
        };
    }

    // ---- expressions ----

    Object eval(Expr e, Scope scope) {
        try {
            return evaluate(e, scope);
        } catch (TemplateError err) {
            throw err.at(e.line());
        }
    }

    private Object evaluate(Expr e, Scope scope) {
        if (e instanceof Literal l) return l.value();
        if (e instanceof Name n) return scope.get(n.name());
        if (e instanceof ListExpr l) {
            List<Object> out = new ArrayList<>();
            for (Expr x : l.items()) out.add(eval(x, scope));
            return out;
        }
        if (e instanceof TupleExpr t) {
            List<Object> out = new ArrayList<>();
            for (Expr x : t.items()) out.add(eval(x, scope));
            return new PyTuple(out);
        }
        if (e instanceof DictExpr d) {
            Map<Object, Object> out = new LinkedHashMap<>();
            for (int i = 0; i < d.keys().size(); i++) out.put(eval(d.keys().get(i), scope), eval(d.values().get(i), scope));
            return out;
        }
        if (e instanceof GetAttr g) return Py.getattr(eval(g.target(), scope), g.name());
        if (e instanceof GetItem g) return Py.getitem(eval(g.target(), scope), eval(g.key(), scope));
        if (e instanceof Slice s) {
            return Py.slice(eval(s.target(), scope), optional(s.start(), scope), optional(s.stop(), scope), optional(s.step(), scope));
        }
        if (e instanceof Call c) return call(c, scope);
        if (e instanceof Filter f) return filter(f.filter(), eval(f.value(), scope), scope);
        if (e instanceof Test t) {
            Object v = eval(t.value(), scope);
            List<Object> args = new ArrayList<>();
            for (Expr a : t.args()) args.add(eval(a, scope));
            return Tests.apply(t.name(), v, args) != t.negated();
        }
        if (e instanceof Unary u) return unary(u.op(), eval(u.operand(), scope));
        if (e instanceof Binary b) return Py.binary(b.op(), eval(b.left(), scope), eval(b.right(), scope));
        if (e instanceof Compare c) return compare(c, scope);
        if (e instanceof And a) {
            Object left = eval(a.left(), scope);
            return Py.truthy(left) ? eval(a.right(), scope) : left;
        }
        if (e instanceof Or o) {
            Object left = eval(o.left(), scope);
            return Py.truthy(left) ? left : eval(o.right(), scope);
        }
        CondExpr c = (CondExpr) e;
        if (Py.truthy(eval(c.condition(), scope))) return eval(c.then(), scope);
        return c.orElse() == null ? new Undefined("the else branch of an inline if") : eval(c.orElse(), scope);
    }

    private static Object unary(String op, Object v) {
        if (op.equals("not")) return !Py.truthy(v);
        if (v instanceof Undefined un) throw un.error();
        if (!Py.isNumber(v)) throw new TemplateError("bad operand type for unary " + op + ": '" + Py.typeName(v) + "'");
        if (op.equals("-")) return v instanceof Double d ? (Object) (-d) : (Object) (-Py.toLong(v));
        return v instanceof Boolean ? (Object) Py.toLong(v) : v;
    }

    private Object optional(Expr e, Scope scope) {
        if (e == null) return null;
        Object v = eval(e, scope);
        if (v != null && !Py.isIntegral(v)) throw new TemplateError("slice indices must be integers or None");
        return v;
    }

    private Object compare(Compare c, Scope scope) {
        Object left = eval(c.first(), scope);
        for (int i = 0; i < c.ops().size(); i++) {
            Object right = eval(c.rest().get(i), scope);
            String op = c.ops().get(i);
            boolean ok = switch (op) {
                case "==" -> Py.eq(left, right);
                case "!=" -> !Py.eq(left, right);
                case "<" -> Py.compare(left, right, op) < 0;
                case "<=" -> Py.compare(left, right, op) <= 0;
                case ">" -> Py.compare(left, right, op) > 0;
                case ">=" -> Py.compare(left, right, op) >= 0;
                case "in" -> Py.contains(right, left);
                default -> !Py.contains(right, left);
            };
            if (!ok) return false;
            left = right;
        }
        return true;
    }

    private Object call(Call c, Scope scope) {
        Object callee = eval(c.callee(), scope);
        List<Object> args = new ArrayList<>();
        for (Expr a : c.args()) args.add(eval(a, scope));
        List<Object> kwValues = new ArrayList<>();
        for (Expr v : c.kwValues()) kwValues.add(eval(v, scope));
        if (callee instanceof PyCallable f) return f.call(args, Filters.kwargs(c.kwNames(), kwValues));
        if (callee instanceof Undefined u) throw u.error();
        throw new TemplateError("'" + Py.typeName(callee) + "' object is not callable");
    }

    private Object filter(FilterCall fc, Object value, Scope scope) {
        try {
            List<Object> args = new ArrayList<>();
            for (Expr a : fc.args()) args.add(eval(a, scope));
            List<Object> kwValues = new ArrayList<>();
            for (Expr v : fc.kwValues()) kwValues.add(eval(v, scope));
            return Filters.apply(fc.name(), value, args, Filters.kwargs(fc.kwNames(), kwValues));
        } catch (TemplateError e) {
            throw e.at(fc.line());
        }
    }
}
