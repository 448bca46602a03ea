package dev.agentswarm.policy.chat.jinja;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code namespace(…)}: the one object a template may change from inside a loop ({@code set ns.x = …}). */
final class Namespace {

    final Map<String, Object> attributes = new LinkedHashMap<>();

    @Override
    public String toString() {
        return "<Namespace " + attributes + ">";
    }
}
