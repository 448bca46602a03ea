package dev.agentswarm.policy.chat.jinja;

/** One lexical token of a template, with the line it starts on. */
record Token(Kind kind, String text, int line) {

    enum Kind {
        /** Literal template text, whitespace control already applied. */
        DATA,
        VAR_BEGIN, VAR_END, BLOCK_BEGIN, BLOCK_END,
        NAME, STRING, INT, FLOAT, OP,
        EOF
    }

    boolean is(Kind k, String t) {
        return kind == k && text.equals(t);
    }

    boolean isOp(String t) {
        return is(Kind.OP, t);
    }

    boolean isName(String t) {
        return is(Kind.NAME, t);
    }

    @Override
    public String toString() {
        return kind == Kind.EOF ? "end of template" : kind == Kind.DATA ? "text" : "'" + text + "'";
    }
}
