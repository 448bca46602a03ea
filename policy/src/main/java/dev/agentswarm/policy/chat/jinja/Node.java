package dev.agentswarm.policy.chat.jinja;

import java.util.List;

/** The parsed template: statements and expressions, each knowing its template line for errors. */
interface Node {

    int line();

    // ---- statements ----

    sealed interface Stmt extends Node {}

    record Text(String text, int line) implements Stmt {}

    record Print(Expr value, int line) implements Stmt {}

    record If(List<Expr> conditions, List<List<Stmt>> bodies, List<Stmt> orElse, int line) implements Stmt {}

    record For(List<String> targets, Expr iterable, Expr filter, List<Stmt> body, List<Stmt> orElse, int line)
            implements Stmt {}

    /** {@code set a = …}, {@code set a, b = …} or {@code set ns.attr = …} (then {@code attribute} is non-null). */
    record Set(List<String> targets, String attribute, Expr value, int line) implements Stmt {}

    /** {@code {% set x %}…{% endset %}}, optionally with filters applied to the captured text. */
    record SetBlock(String target, List<Stmt> body, List<FilterCall> filters, int line) implements Stmt {}

    record Macro(String name, List<String> params, List<Expr> defaults, List<Stmt> body, int line) implements Stmt {}

    record FilterBlock(List<FilterCall> filters, List<Stmt> body, int line) implements Stmt {}

    record Break(int line) implements Stmt {}

    record Continue(int line) implements Stmt {}

    // ---- expressions ----

    sealed interface Expr extends Node {}

    record Literal(Object value, int line) implements Expr {}

    record Name(String name, int line) implements Expr {}

    record ListExpr(List<Expr> items, int line) implements Expr {}

    record TupleExpr(List<Expr> items, int line) implements Expr {}

    record DictExpr(List<Expr> keys, List<Expr> values, int line) implements Expr {}

    record GetAttr(Expr target, String name, int line) implements Expr {}

    record GetItem(Expr target, Expr key, int line) implements Expr {}

    /** {@code target[start:stop:step]}; absent parts are null. */
    record Slice(Expr target, Expr start, Expr stop, Expr step, int line) implements Expr {}

    record Call(Expr callee, List<Expr> args, List<String> kwNames, List<Expr> kwValues, int line) implements Expr {}

    record FilterCall(String name, List<Expr> args, List<String> kwNames, List<Expr> kwValues, int line) {}

    record Filter(Expr value, FilterCall filter, int line) implements Expr {}

    record Test(Expr value, String name, List<Expr> args, boolean negated, int line) implements Expr {}

    record Unary(String op, Expr operand, int line) implements Expr {}

    record Binary(String op, Expr left, Expr right, int line) implements Expr {}

    /** {@code a < b <= c}: Python's chained comparison. */
    record Compare(Expr first, List<String> ops, List<Expr> rest, int line) implements Expr {}

    record And(Expr left, Expr right, int line) implements Expr {}

    record Or(Expr left, Expr right, int line) implements Expr {}

    /** {@code a if cond else b}; {@code orElse} null renders as undefined. */
    record CondExpr(Expr condition, Expr then, Expr orElse, int line) implements Expr {}
}
