package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.JournalDatabase;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.bench.JournalThroughputBenchmark;
import dev.agentswarm.app.bench.ResumeBenchmark;
import dev.agentswarm.app.bench.SwarmBenchmark;
import dev.agentswarm.testkit.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "resume", mixinStandardHelpOptions = true,
        description = {"Times durable swarms' recovery and journal. resume_s: a swarm of SUBAGENTS sub-agents, ANSWERED of them answered",
                "and the others mid-episode with TURNS turns recorded, is journaled on H2 by a process that is then killed (SIGKILL);",
                "a new JVM resumes it: seconds from that JVM's start until every in-flight sub-agent was re-sent and asks for its next",
                "turn, from the latest snapshot (resume_s) and by replaying every event (resume_s_replay), median of REPS.",
                "events_per_s: SWARMS journals at once write whole swarms' events through the swarm journal, one batch in flight",
                "each, on H2 and on PostgreSQL (a private server when PostgreSQL is installed, or --postgres-url)."})
public final class BenchResumeCommand implements Callable<Integer> {

    @Option(names = "--subagents", defaultValue = "200", description = "Sub-agents of the resumed swarm (default ${DEFAULT-VALUE}).")
    int subAgents;

    @Option(names = "--answered", defaultValue = "100", description = "Of them, answered before the crash (default ${DEFAULT-VALUE}).")
    int answered;

    @Option(names = "--turns", defaultValue = "3", description = "Turns recorded by each in-flight sub-agent (default ${DEFAULT-VALUE}).")
    int turns;

    @Option(names = "--snapshot-every", defaultValue = "100",
            description = "Journal entries (writes of the orchestrator's) between snapshots of the resumed swarm's journal "
                    + "(default ${DEFAULT-VALUE}; swarm run's is 1000).")
    int snapshotEvery;

    @Option(names = "--reps", defaultValue = "3", description = "Resumes of each kind; the median is reported (default ${DEFAULT-VALUE}).")
    int reps;

    @Option(names = "--swarms", defaultValue = "8", description = "Journals written at once for events_per_s (default ${DEFAULT-VALUE}).")
    int swarms;

    @Option(names = "--max-batch", defaultValue = "64", description = "Events in one journal write at most, for events_per_s (default ${DEFAULT-VALUE}).")
    int maxBatch;

    @Option(names = "--postgres-url", description = "PostgreSQL JDBC URL for events_per_s (user and password from SWARM_JOURNAL_USER and"
            + " SWARM_JOURNAL_PASSWORD); by default a private server when PostgreSQL is installed, else none.")
    String postgresUrl;

    @Option(names = "--skip", split = ",", description = "Parts to leave out: resume, h2, postgres.")
    java.util.List<String> skip = java.util.List.of();

    @Mixin
    JsonOption json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        var err = spec.commandLine().getErr();
        Report r = new Report();
        if (!skip.contains("resume")) {
            Map<String, Object> f = ResumeBenchmark.run(new ResumeBenchmark.Settings(subAgents, answered, turns, snapshotEvery, reps), err::println);
            r.line(String.format("resume: %d sub-agents (%d answered, %d in flight with %d turns), %s events: running again %.3f s after the JVM"
                            + " started from a snapshot, %.3f s replaying every event (median of %d; JVM to main %.3f s, to node up %.3f s)",
                    subAgents, answered, subAgents - answered, turns, f.get("events"), (Double) f.get("resume_s"), (Double) f.get("resume_s_replay"),
                    reps, (Double) f.get("jvm_to_main_s"), (Double) f.get("jvm_to_node_up_s")));
            f.forEach(r::put);
        }
        var throughput = new JournalThroughputBenchmark.Settings(swarms, subAgents, 10, maxBatch);
        Config base = ConfigFactory.parseString("pekko.actor.provider = local").withFallback(SwarmNode.loadConfig(null)).resolve();
        if (!skip.contains("h2")) {
            Path dir = Files.createTempDirectory("swarm-bench-journal");
            try {
                Map<String, Object> f = JournalThroughputBenchmark.run(JournalDatabase.settings(base, dir), "h2", throughput, err::println);
                r.line(String.format("journal on H2: %d events/s (%d swarms at once, %s events, batches of at most %d)",
                        (Long) f.get("events_per_s"), swarms, f.get("events"), maxBatch));
                r.put("events_per_s_h2", f.get("events_per_s"));
                r.put("throughput_events", f.get("events"));
            } finally {
                SwarmBenchmark.deleteTree(dir);
            }
        }
        if (!skip.contains("postgres") && (postgresUrl != null || PostgresServer.available())) {
            PostgresServer server = postgresUrl == null ? PostgresServer.start() : null;
            try {
                String url = postgresUrl != null ? postgresUrl : server.jdbcUrl();
                String user = postgresUrl != null ? System.getenv().getOrDefault("SWARM_JOURNAL_USER", "agentswarm") : PostgresServer.USER;
                String password = postgresUrl != null ? System.getenv().getOrDefault("SWARM_JOURNAL_PASSWORD", "") : "";
                Config pg = ConfigFactory.parseMap(Map.of("agentswarm.persistence.database", "postgres",
                        "pekko-persistence-jdbc.shared-databases.slick.profile", "slick.jdbc.PostgresProfile$",
                        "pekko-persistence-jdbc.shared-databases.slick.db.url", url,
                        "pekko-persistence-jdbc.shared-databases.slick.db.user", user,
                        "pekko-persistence-jdbc.shared-databases.slick.db.password", password,
                        "pekko-persistence-jdbc.shared-databases.slick.db.driver", "org.postgresql.Driver")).withFallback(
                        ConfigFactory.parseFile(Path.of("conf/persistence-postgres.conf").toFile())).withFallback(base).resolve();
                JournalDatabase.check(pg);
                Map<String, Object> f = JournalThroughputBenchmark.run(pg, "postgres", throughput, err::println);
                r.line(String.format("journal on PostgreSQL: %d events/s (%d swarms at once, batches of at most %d)",
                        (Long) f.get("events_per_s"), swarms, maxBatch));
                r.put("events_per_s_postgres", f.get("events_per_s"));
            } finally {
                if (server != null) server.close();
            }
        } else if (!skip.contains("postgres")) {
            r.line("journal on PostgreSQL: not measured (PostgreSQL is not installed; give --postgres-url)");
        }
        r.put("swarms", swarms);
        r.put("max_batch", maxBatch);
        r.print(json.json);
        return 0;
    }
}
