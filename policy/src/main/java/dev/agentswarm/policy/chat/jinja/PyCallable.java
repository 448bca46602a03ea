package dev.agentswarm.policy.chat.jinja;

import java.util.List;
import java.util.Map;

/** Anything a template can call: a global function, a macro, a bound method of a string or dict. */
@FunctionalInterface
interface PyCallable {

    Object call(List<Object> args, Map<String, Object> kwargs);
}
