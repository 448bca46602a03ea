package dev.agentswarm.policy.chat.jinja;

/**
 * Jinja2's default undefined value: prints as nothing, is false, iterates as empty and equals only
 * another undefined; reading an attribute of it, calling it or computing with it is an error.
 */
final class Undefined {

    private final String hint;

    Undefined(String hint) {
        this.hint = hint;
    }

    TemplateError error() {
        return new TemplateError(hint + " is undefined");
    }

    @Override
    public String toString() {
        return "";
    }
}
