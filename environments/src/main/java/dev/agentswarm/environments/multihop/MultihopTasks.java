package dev.agentswarm.environments.multihop;

import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.GeneratedTasks;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.multihop.World.Entity;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Questions over the generated world composed as MuSiQue composes its own: a chain of 2–4 single-hop
 * facts where each hop's answer is the next hop's subject, asked as one question that names only the
 * first entity ("Which country is the birthplace of the founder of Quorvex Industries in?" asks
 * FOUNDER, BORN_IN, COUNTRY). No entity repeats in a chain, and every fact is functional, so each
 * question has exactly one answer; its support is the page of every entity the chain passes.
 */
final class MultihopTasks {

    /** A drawn chain: the first entity and the facts followed. */
    record Chain(Entity start, List<Relation> relations) {}

    private MultihopTasks() {}

    static List<Task> generate(String suite, Split split, int limit, long seed, World world, int minHops, int maxHops) {
        List<Entity> entities = world.entities();
        return GeneratedTasks.generate(suite, split, limit, seed,
                rnd -> draw(rnd, entities.get(rnd.nextInt(entities.size())), minHops + rnd.nextInt(maxHops - minHops + 1)),
                MultihopTasks::question,
                (id, metadata, chain) -> {
                    List<HopTask.Step> steps = steps(chain);
                    List<String> support = steps.stream().flatMap(s -> s.support().stream()).toList();
                    metadata.put(HopTask.HOPS, Integer.toString(steps.size()));
                    metadata.put(HopTask.TYPE, chain.relations().get(chain.relations().size() - 1).name().toLowerCase(Locale.ROOT));
                    metadata.put(HopTask.STEPS, HopTask.stepsJson(steps));
                    metadata.put(HopTask.SUPPORT, HopTask.stringsJson(support));
                    metadata.put(HopTask.CITE, HopTask.stringsJson(support));
                    metadata.put(HopTask.ALIASES, HopTask.stringsJson(List.of()));
                    return new Task(id, question(chain), steps.get(steps.size() - 1).answer(), metadata);
                });
    }

    /** A chain of {@code hops} facts from {@code start}, or null when it runs into a dead end or a repeat. */
    static Chain draw(SplittableRandom rnd, Entity start, int hops) {
        List<Relation> relations = new ArrayList<>();
        Set<Entity> visited = new HashSet<>();
        visited.add(start);
        Entity at = start;
        for (int i = 0; i < hops; i++) {
            boolean last = i == hops - 1;
            List<Relation> options = new ArrayList<>();
            for (Relation r : Relation.values()) {
                if (r.subject != at.kind || (!last && !r.toEntity())) continue;
                if (r.toEntity() && visited.contains((Entity) at.facts.get(r))) continue;
                options.add(r);
            }
            if (options.isEmpty()) return null;
            Relation r = options.get(rnd.nextInt(options.size()));
            relations.add(r);
            if (r.toEntity()) {
                at = (Entity) at.facts.get(r);
                visited.add(at);
            }
        }
        return new Chain(start, relations);
    }

    /** The composed question: inner hops as noun phrases around the first entity, the last as the question. */
    static String question(Chain chain) {
        List<Relation> rs = chain.relations();
        String described = chain.start().mention();
        for (int i = 0; i < rs.size() - 1; i++) described = String.format(Locale.ROOT, rs.get(i).nounPhrase, described);
        return String.format(Locale.ROOT, rs.get(rs.size() - 1).question, described);
    }

    /** The single-hop decomposition, each hop asked about the entity the previous one found. */
    static List<HopTask.Step> steps(Chain chain) {
        List<HopTask.Step> steps = new ArrayList<>();
        Entity at = chain.start();
        for (Relation r : chain.relations()) {
            Object value = at.facts.get(r);
            String answer = value.toString();
            String ask = String.format(Locale.ROOT, r.question, at.mention());
            steps.add(new HopTask.Step(ask, at.name + " " + r.queryWords, List.of(at.name), at.name, answer, List.of(at.key)));
            if (value instanceof Entity next) at = next;
        }
        return steps;
    }
}
