package dev.agentswarm.environments.multihop;

import com.typesafe.config.Config;
import dev.agentswarm.environments.multihop.Relation.Kind;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A made-up world of people, cities, countries, companies, universities and films, with one value
 * per fact ({@link Relation}), rendered as one encyclopedia page per entity. Names are invented from
 * syllables, so a policy cannot answer from what it memorised: it has to search. Pages also mention
 * their entity from the other side (a city lists people born there), so a name search returns
 * several pages and BM25 has to rank the right one first. The same seed and sizes give the same world.
 */
final class World {

    /** How many entities of each kind. */
    record Sizes(int countries, int cities, int people, int companies, int universities, int films) {
        Sizes {
            if (countries < 2 || cities < countries || people < 4 || companies < 2 || universities < 2 || films < 2) {
                throw new IllegalArgumentException("multihop.world: need countries >= 2, cities >= countries, people >= 4 and"
                        + " at least 2 companies, universities and films; got " + this);
            }
        }

        static Sizes fromConfig(Config c) {
            return new Sizes(c.getInt("countries"), c.getInt("cities"), c.getInt("people"), c.getInt("companies"),
                    c.getInt("universities"), c.getInt("films"));
        }
    }

    /** One entity: its kind, name, page key and facts (an {@link Entity} or a value string). */
    static final class Entity {
        final Kind kind;
        final String name;
        final String key;
        final Map<Relation, Object> facts = new EnumMap<>(Relation.class);

        Entity(Kind kind, String name, int key) {
            this.kind = kind;
            this.name = name;
            this.key = Integer.toString(key);
        }

        /** How a question names it: films get "the film". */
        String mention() {
            return kind == Kind.FILM ? "the film " + name : name;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static final String[] ONSETS = {"b", "br", "c", "d", "dr", "f", "g", "gr", "h", "k", "kr", "l", "m", "n", "p", "r",
        "s", "st", "t", "th", "tr", "v", "w", "z"};
    private static final String[] VOWELS = {"a", "e", "i", "o", "u", "ae", "ei", "ou"};
    private static final String[] CODAS = {"", "", "n", "r", "l", "s", "th", "nd", "rk", "m"};
    private static final String[] CITY_ENDS = {"mora", "ford", "haven", "burg", "wick", "dale", "port", "stead"};
    private static final String[] COUNTRY_ENDS = {"ia", "land", "ar", "istan", "ova"};
    private static final String[] COMPANY_ENDS = {"Industries", "Systems", "Labs", "Group", "Works", "Holdings"};
    private static final String[] UNIVERSITY_FORMS = {"%s Institute", "%s College", "University of %s", "%s Polytechnic"};
    private static final String[] FILM_ADJECTIVES = {"Silent", "Glass", "Broken", "Distant", "Golden", "Hollow", "Crimson",
        "Quiet", "Burning", "Frozen", "Hidden", "Last", "Wandering", "Iron", "Paper", "Northern", "Velvet", "Endless"};
    private static final String[] FILM_NOUNS = {"Harbor", "Meridian", "Orchard", "Lantern", "Tide", "Horizon", "Garden",
        "Signal", "Canyon", "Mirror", "Compass", "River", "Station", "Archive", "Season", "Bridge", "Voyage", "Winter"};
    private static final String[] OCCUPATIONS = {"engineer", "architect", "economist", "novelist", "chemist", "physician",
        "film director", "historian", "entrepreneur", "composer", "journalist", "mathematician"};

    private final List<Entity> entities = new ArrayList<>();
    private final Map<Kind, List<Entity>> byKind = new EnumMap<>(Kind.class);
    private final Map<Entity, String> occupation = new java.util.HashMap<>();

    private World() {
        for (Kind k : Kind.values()) byKind.put(k, new ArrayList<>());
    }

    static World generate(long seed, Sizes sizes) {
        World w = new World();
        SplittableRandom rnd = new SplittableRandom(seed);
        Set<String> taken = new HashSet<>();
        for (int i = 0; i < sizes.countries(); i++) w.add(Kind.COUNTRY, unique(taken, () -> cap(word(rnd, 2)) + pick(rnd, COUNTRY_ENDS)));
        for (int i = 0; i < sizes.cities(); i++) w.add(Kind.CITY, unique(taken, () -> cap(word(rnd, 1)) + pick(rnd, CITY_ENDS)));
        for (int i = 0; i < sizes.people(); i++) {
            w.add(Kind.PERSON, unique(taken, () -> cap(word(rnd, 1 + rnd.nextInt(2))) + " " + cap(word(rnd, 2))));
        }
        for (int i = 0; i < sizes.companies(); i++) {
            w.add(Kind.COMPANY, unique(taken, () -> cap(word(rnd, 2)) + " " + pick(rnd, COMPANY_ENDS)));
        }
        for (int i = 0; i < sizes.universities(); i++) {
            w.add(Kind.UNIVERSITY, unique(taken, () -> String.format(Locale.ROOT, pick(rnd, UNIVERSITY_FORMS), cap(word(rnd, 2)))));
        }
        for (int i = 0; i < sizes.films(); i++) {
            w.add(Kind.FILM, unique(taken, () -> pick(rnd, FILM_ADJECTIVES) + " " + pick(rnd, FILM_NOUNS)));
        }
        w.relate(rnd);
        return w;
    }

    private void add(Kind kind, String name) {
        Entity e = new Entity(kind, name, entities.size());
        entities.add(e);
        byKind.get(kind).add(e);
    }

    /** Draws every fact. Capitals first, so each country's capital lies in that country. */
    private void relate(SplittableRandom rnd) {
        List<Entity> countries = byKind.get(Kind.COUNTRY);
        List<Entity> cities = byKind.get(Kind.CITY);
        for (int i = 0; i < cities.size(); i++) {
            Entity city = cities.get(i);
            // The first city of each country is its capital; the rest are spread at random.
            Entity country = i < countries.size() ? countries.get(i) : pick(rnd, countries);
            city.facts.put(Relation.COUNTRY, country);
            if (i < countries.size()) country.facts.put(Relation.CAPITAL, city);
            city.facts.put(Relation.POPULATION, String.format(Locale.ROOT, "%,d", 5_000 + rnd.nextInt(2_000_000)));
        }
        for (Entity p : byKind.get(Kind.PERSON)) {
            p.facts.put(Relation.BORN_IN, pick(rnd, cities));
            p.facts.put(Relation.EDUCATED_AT, pick(rnd, byKind.get(Kind.UNIVERSITY)));
            p.facts.put(Relation.EMPLOYER, pick(rnd, byKind.get(Kind.COMPANY)));
            p.facts.put(Relation.BIRTH_YEAR, Integer.toString(1920 + rnd.nextInt(81)));
            occupation.put(p, pick(rnd, OCCUPATIONS));
        }
        List<Entity> people = byKind.get(Kind.PERSON);
        for (Entity c : cities) c.facts.put(Relation.MAYOR, pick(rnd, people));
        for (Entity c : byKind.get(Kind.COMPANY)) {
            c.facts.put(Relation.FOUNDER, pick(rnd, people));
            c.facts.put(Relation.HEADQUARTERS, pick(rnd, cities));
            c.facts.put(Relation.COMPANY_FOUNDED, Integer.toString(1850 + rnd.nextInt(170)));
        }
        for (Entity u : byKind.get(Kind.UNIVERSITY)) {
            u.facts.put(Relation.LOCATION, pick(rnd, cities));
            u.facts.put(Relation.UNIVERSITY_FOUNDED, Integer.toString(1700 + rnd.nextInt(300)));
        }
        for (Entity f : byKind.get(Kind.FILM)) {
            f.facts.put(Relation.DIRECTOR, pick(rnd, people));
            f.facts.put(Relation.STUDIO, pick(rnd, byKind.get(Kind.COMPANY)));
            f.facts.put(Relation.RELEASE_YEAR, Integer.toString(1950 + rnd.nextInt(75)));
        }
    }

    List<Entity> entities() {
        return entities;
    }

    /** One page per entity, keyed by its index: its own facts, then where others point to it. */
    List<Passage> pages() {
        Map<Entity, List<String>> mentions = new java.util.HashMap<>();
        for (Entity e : entities) {
            for (var f : e.facts.entrySet()) {
                if (f.getValue() instanceof Entity o) mentions.computeIfAbsent(o, k -> new ArrayList<>()).add(inverse(f.getKey(), e));
            }
        }
        List<Passage> pages = new ArrayList<>();
        for (Entity e : entities) {
            List<String> sentences = new ArrayList<>(facts(e));
            List<String> back = mentions.getOrDefault(e, List.of());
            // A few back-references are realistic distractors; all of them would bury the page's own facts.
            for (int i = 0; i < Math.min(3, back.size()); i++) sentences.add(" " + back.get(i));
            pages.add(new Passage(e.key, e.name, sentences));
        }
        return pages;
    }

    private List<String> facts(Entity e) {
        Map<Relation, Object> f = e.facts;
        String n = e.name;
        return switch (e.kind) {
            case PERSON -> List.of(
                    n + " (born " + f.get(Relation.BIRTH_YEAR) + ") is " + article(occupation.get(e)) + ".",
                    " " + n + " was born in " + f.get(Relation.BORN_IN) + ".",
                    " " + n + " studied at " + f.get(Relation.EDUCATED_AT) + ".",
                    " " + n + " works for " + f.get(Relation.EMPLOYER) + ".");
            case CITY -> List.of(
                    n + " is a city in " + f.get(Relation.COUNTRY) + ".",
                    " It has a population of " + f.get(Relation.POPULATION) + ".",
                    " The mayor of " + n + " is " + f.get(Relation.MAYOR) + ".");
            case COUNTRY -> List.of(n + " is a country. Its capital is " + f.get(Relation.CAPITAL) + ".");
            case COMPANY -> List.of(
                    n + " is a company founded by " + f.get(Relation.FOUNDER) + " in " + f.get(Relation.COMPANY_FOUNDED) + ".",
                    " It is headquartered in " + f.get(Relation.HEADQUARTERS) + ".");
            case UNIVERSITY -> List.of(
                    n + " is a university located in " + f.get(Relation.LOCATION) + ".",
                    " It was established in " + f.get(Relation.UNIVERSITY_FOUNDED) + ".");
            case FILM -> List.of(
                    n + " is a film released in " + f.get(Relation.RELEASE_YEAR) + ", directed by " + f.get(Relation.DIRECTOR) + ".",
                    " It was produced by " + f.get(Relation.STUDIO) + ".");
        };
    }

    /** How the object's page mentions a subject pointing to it. */
    private static String inverse(Relation r, Entity subject) {
        String s = subject.name;
        return switch (r) {
            case BORN_IN -> s + " was born here.";
            case EDUCATED_AT -> s + " is an alumnus.";
            case EMPLOYER -> s + " is an employee.";
            case COUNTRY -> s + " is one of its cities.";
            case MAYOR -> "This person is the mayor of " + s + ".";
            case CAPITAL -> "This city is the capital of " + s + ".";
            case FOUNDER -> "This person founded " + s + ".";
            case HEADQUARTERS -> s + " has its headquarters here.";
            case LOCATION -> s + " is located here.";
            case DIRECTOR -> "This person directed " + s + ".";
            case STUDIO -> "This studio produced " + s + ".";
            default -> throw new IllegalArgumentException(r + " has no entity value");
        };
    }

    private static String article(String noun) {
        return ("aeiou".indexOf(noun.charAt(0)) >= 0 ? "an " : "a ") + noun;
    }

    private static String word(SplittableRandom rnd, int syllables) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < syllables; i++) sb.append(pick(rnd, ONSETS)).append(pick(rnd, VOWELS)).append(pick(rnd, CODAS));
        return sb.toString();
    }

    private static String cap(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static <T> T pick(SplittableRandom rnd, T[] items) {
        return items[rnd.nextInt(items.length)];
    }

    private static <T> T pick(SplittableRandom rnd, List<T> items) {
        return items.get(rnd.nextInt(items.size()));
    }

    private static String unique(Set<String> taken, java.util.function.Supplier<String> draw) {
        for (int i = 0; i < 10_000; i++) {
            String s = draw.get();
            if (taken.add(s.toLowerCase(Locale.ROOT))) return s;
        }
        throw new IllegalStateException("multihop.world: ran out of distinct names; make the world smaller");
    }
}
