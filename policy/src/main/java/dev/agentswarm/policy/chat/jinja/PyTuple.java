package dev.agentswarm.policy.chat.jinja;

import java.util.AbstractList;
import java.util.List;

/** A Python tuple: a list that prints with parentheses. */
final class PyTuple extends AbstractList<Object> {

    private final List<Object> items;

    PyTuple(List<Object> items) {
        this.items = items;
    }

    @Override
    public Object get(int index) {
        return items.get(index);
    }

    @Override
    public int size() {
        return items.size();
    }
}
