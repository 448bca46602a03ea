package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.JournalDatabase;
import dev.agentswarm.app.SwarmJournals;
import dev.agentswarm.app.SwarmNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.SerializationExtension;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "runs", mixinStandardHelpOptions = true,
        description = {"List swarms and their state from their journals: running (its process holds the journal), finished,",
                "failed (ended without an answer) or resumable (its process died: swarm run --resume RUN_DIR).",
                "With the default H2 journal each run folder under --dir has its own; with a --config naming PostgreSQL",
                "(conf/persistence-postgres.conf) the database's swarms are listed."})
public final class RunsCommand implements Callable<Integer> {

    @Option(names = "--dir", paramLabel = "DIR", defaultValue = "runs", description = "Where the run folders are (default ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file: agentswarm.persistence and the journal database.")
    Path config;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.provider = local\npekko.loglevel = ERROR")
                .withFallback(SwarmNode.loadConfig(config)).resolve();
        JournalDatabase.Kind kind = JournalDatabase.kind(cfg);
        // Only to read events with the serializers that wrote them: no journal plugin starts.
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "swarm-runs", cfg);
        List<SwarmJournals.Swarm> swarms;
        try {
            var serialization = SerializationExtension.get(system.classicSystem());
            swarms = kind == JournalDatabase.Kind.H2 ? SwarmJournals.inRunFolders(dir, serialization)
                    : SwarmJournals.inDatabase(cfg, serialization);
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        Report r = new Report();
        if (swarms.isEmpty()) r.line(kind == JournalDatabase.Kind.H2 ? "no journaled swarms under " + dir : "no swarms in the journal");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (SwarmJournals.Swarm s : swarms) {
            String task = s.task() == null ? "" : s.task().length() > 60 ? s.task().substring(0, 59) + "…" : s.task();
            r.line(String.format("%-10s %-40s %s/%s sub-agents answered, %d rounds, %d events  %s%s", s.state().name().toLowerCase(Locale.ROOT),
                    s.where() + (kind == JournalDatabase.Kind.H2 ? "" : " " + s.runId()), s.answered(), s.subAgents(), s.rounds(), s.events(),
                    task, s.problem() == null ? "" : "  (" + s.problem() + ")"));
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("where", s.where());
            row.put("run_id", s.runId());
            row.put("state", s.state().name().toLowerCase(Locale.ROOT));
            row.put("task", s.task());
            row.put("rounds", s.rounds());
            row.put("subagents", s.subAgents());
            row.put("answered", s.answered());
            row.put("events", s.events());
            row.put("answer", s.answer());
            row.put("problem", s.problem());
            rows.add(row);
        }
        r.put("swarms", rows);
        r.print(json.json);
        return 0;
    }
}
