package dev.agentswarm.environments.multihop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * BM25 over passages, in memory: Lucene with English analysis (lower case, stop words, possessives,
 * Porter stems) on the title and the text, a title match counting double. A query is a bag of words:
 * no query syntax for a model to get wrong. Thread-safe for searches; closed by its owner.
 */
public final class PassageIndex implements AutoCloseable {

    /** Distinct query terms kept (two clauses each), so a pasted page stays within Lucene's clause limit of 1024. */
    static final int MAX_QUERY_TERMS = 256;
    private static final float TITLE_BOOST = 2f;

    private final List<Passage> passages;
    private final boolean citesSentences;
    private final Analyzer analyzer = new EnglishAnalyzer();
    private final ByteBuffersDirectory directory = new ByteBuffersDirectory();
    private final DirectoryReader reader;
    private final IndexSearcher searcher;

    /**
     * @param citesSentences whether results show sentence keys ({@code [3.1]}) for sentence-level citations
     */
    public PassageIndex(List<Passage> passages, boolean citesSentences) {
        if (passages.isEmpty()) throw new IllegalArgumentException("nothing to index: no passages");
        this.passages = List.copyOf(passages);
        this.citesSentences = citesSentences;
        try {
            // One small in-memory segment: no compound file to pack, no merges to schedule.
            IndexWriterConfig config = new IndexWriterConfig(analyzer).setSimilarity(new BM25Similarity())
                    .setUseCompoundFile(false).setMergePolicy(org.apache.lucene.index.NoMergePolicy.INSTANCE);
            try (IndexWriter writer = new IndexWriter(directory, config)) {
                for (Passage p : this.passages) {
                    Document d = new Document();
                    d.add(new TextField("title", p.title(), Field.Store.NO));
                    d.add(new TextField("text", p.text(), Field.Store.NO));
                    writer.addDocument(d);
                }
            }
            reader = DirectoryReader.open(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot index passages in memory", e);
        }
        searcher = new IndexSearcher(reader);
        searcher.setSimilarity(new BM25Similarity());
        // Every query is new words: caching them costs more than it saves.
        searcher.setQueryCache(null);
        // One writer thread, no merges, no deletes: doc ids are the order passages were added in.
        if (reader.maxDoc() != this.passages.size()) {
            throw new IllegalStateException("indexed " + reader.maxDoc() + " of " + this.passages.size() + " passages");
        }
    }

    public List<Passage> passages() {
        return passages;
    }

    public boolean citesSentences() {
        return citesSentences;
    }

    /** The best {@code k} passages for the words of {@code query}, best first; empty when no word matches. */
    public List<Passage> search(String query, int k) {
        List<String> terms = terms(query);
        if (terms.isEmpty()) return List.of();
        BooleanQuery.Builder q = new BooleanQuery.Builder();
        for (String t : terms) {
            q.add(new BoostQuery(new TermQuery(new Term("title", t)), TITLE_BOOST), BooleanClause.Occur.SHOULD);
            q.add(new TermQuery(new Term("text", t)), BooleanClause.Occur.SHOULD);
        }
        try {
            List<Passage> hits = new ArrayList<>();
            for (ScoreDoc sd : searcher.search(q.build(), k).scoreDocs) hits.add(passages.get(sd.doc));
            return hits;
        } catch (IOException e) {
            throw new UncheckedIOException("search failed", e);
        }
    }

    /** What the model reads: each hit's key and title, then its text (sentence keys when cited by sentence). */
    public String render(List<Passage> hits) {
        StringBuilder sb = new StringBuilder();
        for (Passage p : hits) {
            if (!sb.isEmpty()) sb.append("\n\n");
            sb.append('[').append(p.key()).append("] ").append(p.title()).append('\n');
            if (!citesSentences) {
                sb.append(p.text().strip());
                continue;
            }
            for (int i = 0; i < p.sentences().size(); i++) {
                if (i > 0) sb.append(' ');
                sb.append('[').append(p.key()).append('.').append(i).append("] ").append(p.sentences().get(i).strip());
            }
        }
        return sb.toString();
    }

    /** The analysed, distinct words of a query, at most {@link #MAX_QUERY_TERMS}. */
    List<String> terms(String query) {
        Set<String> out = new LinkedHashSet<>();
        try (TokenStream ts = analyzer.tokenStream("text", query)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken() && out.size() < MAX_QUERY_TERMS) out.add(term.toString());
            ts.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.copyOf(out);
    }

    @Override
    public void close() {
        try {
            reader.close();
            directory.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        analyzer.close();
    }
}
