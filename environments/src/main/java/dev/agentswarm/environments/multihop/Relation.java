package dev.agentswarm.environments.multihop;

/**
 * A fact type of the generated world: from an entity of one kind to another entity ({@code object}
 * set) or to a value ({@code object} null). Each is functional (one value per subject), so a chain
 * of them has one answer. It knows how a question asks for it, how a longer question names its
 * value ("the founder of X"), and the words a searcher would add to the subject's name.
 */
enum Relation {
    BORN_IN(Kind.PERSON, Kind.CITY, "the birthplace of %s", "Where was %s born?", "born birthplace"),
    EDUCATED_AT(Kind.PERSON, Kind.UNIVERSITY, "the university %s attended", "Which university did %s attend?", "studied university"),
    EMPLOYER(Kind.PERSON, Kind.COMPANY, "the company %s works for", "Which company does %s work for?", "works for company"),
    BIRTH_YEAR(Kind.PERSON, null, null, "In what year was %s born?", "born year"),
    COUNTRY(Kind.CITY, Kind.COUNTRY, "the country %s is in", "Which country is %s in?", "city country"),
    MAYOR(Kind.CITY, Kind.PERSON, "the mayor of %s", "Who is the mayor of %s?", "mayor"),
    POPULATION(Kind.CITY, null, null, "What is the population of %s?", "population"),
    CAPITAL(Kind.COUNTRY, Kind.CITY, "the capital of %s", "What is the capital of %s?", "capital"),
    FOUNDER(Kind.COMPANY, Kind.PERSON, "the founder of %s", "Who founded %s?", "founded by founder"),
    HEADQUARTERS(Kind.COMPANY, Kind.CITY, "the city where %s is headquartered", "Where is %s headquartered?", "headquartered"),
    COMPANY_FOUNDED(Kind.COMPANY, null, null, "In what year was %s founded?", "founded year"),
    LOCATION(Kind.UNIVERSITY, Kind.CITY, "the city %s is located in", "In which city is %s located?", "located city"),
    UNIVERSITY_FOUNDED(Kind.UNIVERSITY, null, null, "In what year was %s established?", "established year"),
    DIRECTOR(Kind.FILM, Kind.PERSON, "the director of %s", "Who directed %s?", "directed director"),
    STUDIO(Kind.FILM, Kind.COMPANY, "the studio that produced %s", "Which studio produced %s?", "produced studio"),
    RELEASE_YEAR(Kind.FILM, null, null, "In what year was %s released?", "film released year");

    /** What an entity of the world is. */
    enum Kind { PERSON, CITY, COUNTRY, COMPANY, UNIVERSITY, FILM }

    final Kind subject;
    final Kind object;
    final String nounPhrase;
    final String question;
    final String queryWords;

    Relation(Kind subject, Kind object, String nounPhrase, String question, String queryWords) {
        this.subject = subject;
        this.object = object;
        this.nounPhrase = nounPhrase;
        this.question = question;
        this.queryWords = queryWords;
    }

    boolean toEntity() {
        return object != null;
    }
}
