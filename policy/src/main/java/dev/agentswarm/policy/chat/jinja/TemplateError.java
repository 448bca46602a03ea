package dev.agentswarm.policy.chat.jinja;

/**
 * A template that cannot be parsed or rendered: the message says what and, when known, on which
 * line of the template. {@code raise_exception("…")} in a template is one too, with its message.
 */
public final class TemplateError extends RuntimeException {

    private final int line;

    public TemplateError(String message, int line) {
        super(line > 0 ? message + " (template line " + line + ")" : message);
        this.line = line;
    }

    public TemplateError(String message) {
        this(message, 0);
    }

    /** The template line (1-based), or 0 when unknown. */
    public int line() {
        return line;
    }

    /** The same error, placed on {@code line} when it had no line yet. */
    TemplateError at(int line) {
        if (this.line > 0 || line <= 0) return this;
        TemplateError e = new TemplateError(getMessage(), line);
        e.setStackTrace(getStackTrace());
        return e;
    }
}
