package dev.agentswarm.environments.multihop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolSpecs;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The {@code search} tool of the multi-hop suites: {@code {"query": "Van Hook Township county"}}
 * gives the best passages of the calling episode's corpus, each with the key an answer cites. One
 * schema for every suite that offers it (a node routes the name to the episode's suite). BM25 over
 * an in-memory index of at most a few thousand passages takes microseconds, so it answers on the
 * caller's thread.
 */
public final class SearchTool implements Tool {

    public static final String NAME = "search";

    static final ToolSpec SPEC = ToolSpecs.oneString(NAME,
            "Searches the document collection with BM25 and returns the best passages, each headed by its key in"
                    + " brackets and its title. Ask for one fact at a time, naming the entity you know.",
            "query", "Keywords or a short question, e.g. \"Van Hook Township county\".");

    private final Function<String, PassageIndex> indexOfEpisode;
    private final int topK;

    /**
     * @param indexOfEpisode the index an episode searches, by episode id (it throws for an episode
     *     of another suite)
     */
    public SearchTool(Function<String, PassageIndex> indexOfEpisode, int topK) {
        if (topK < 1) throw new IllegalArgumentException("search top-k must be >= 1, got " + topK);
        this.indexOfEpisode = indexOfEpisode;
        this.topK = topK;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    /** It only reads the episode's corpus. */
    @Override
    public boolean idempotent(JsonNode arguments) {
        return true;
    }

    @Override
    public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
        try {
            String query = ToolSpecs.string(arguments, "query");
            if (query.isBlank()) throw new IllegalArgumentException("the query is empty; name what you are looking for");
            PassageIndex index = indexOfEpisode.apply(context.episodeId());
            List<Passage> hits = index.search(query, topK);
            if (hits.isEmpty()) return CompletableFuture.completedFuture("No passage matches \"" + query + "\". Try other words.");
            return CompletableFuture.completedFuture(index.render(hits));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
