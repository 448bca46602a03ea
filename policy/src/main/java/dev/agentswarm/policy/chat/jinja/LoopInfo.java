package dev.agentswarm.policy.chat.jinja;

import java.util.List;

/** The {@code loop} variable inside a {@code for}: index, first/last, length, neighbours, cycle. */
final class LoopInfo {

    private final List<Object> items;
    private final int depth0;
    int index0;

    LoopInfo(List<Object> items, int depth0) {
        this.items = items;
        this.depth0 = depth0;
    }

    Object attribute(String name) {
        int n = items.size();
        return switch (name) {
            case "index0" -> (long) index0;
            case "index" -> (long) index0 + 1;
            case "revindex0" -> (long) (n - index0 - 1);
            case "revindex" -> (long) (n - index0);
            case "first" -> index0 == 0;
            case "last" -> index0 == n - 1;
            case "length" -> (long) n;
            case "depth0" -> (long) depth0;
            case "depth" -> (long) depth0 + 1;
            case "previtem" -> index0 > 0 ? items.get(index0 - 1) : new Undefined("there is no previous item: loop.previtem");
            case "nextitem" -> index0 < n - 1 ? items.get(index0 + 1) : new Undefined("there is no next item: loop.nextitem");
            case "cycle" -> (PyCallable) (args, kwargs) -> {
                if (args.isEmpty()) throw new TemplateError("no items for cycling given");
                return args.get(index0 % args.size());
            };
            default -> new Undefined("'LoopContext' has no attribute '" + name + "'; it");
        };
    }
}
