package dev.agentswarm.environments.mcp;

import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.Tool;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's MCP servers ({@code agentswarm.mcp.servers}) and the episode tools they offer.
 *
 * <p>{@link #start} starts every server at once and waits for each to list its tools (within its
 * {@code start-timeout}); their tools, under each server's prefix, are the tools this node offers
 * from MCP for as long as it runs. A server shared by the node's episodes keeps running, restarted
 * when it fails; a {@code per-episode} one is started once to list its tools, then once per
 * episode on its first call, and stopped when the episode ends ({@link Tool#release}). A server that
 * fails to start is reported ({@link #servers}) and offers nothing: the node starts without it.
 *
 * <p>The names are fixed when the node starts; what a server says later (after a restart, or in a
 * {@code notifications/tools/list_changed}) updates the descriptions and schemas of those tools for
 * the episodes that start afterwards, and a tool no longer listed answers that it is gone. A tool
 * that appears later is logged and reported, not offered: the node would need a restart to offer it.
 *
 * <p>{@link #close} stops every server process and its children; a JVM shutdown hook does the same
 * when the node's process ends without it.
 */
public final class McpServers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(McpServers.class);

    private final List<Entry> entries;
    private final List<Tool> tools;
    private final Map<String, Entry> byTool;
    private final Thread hook;

    private McpServers(List<Entry> entries) {
        this.entries = entries;
        List<Tool> all = new ArrayList<>();
        Map<String, Entry> owners = new LinkedHashMap<>();
        for (Entry e : entries) {
            for (McpTool t : e.offered.values()) {
                Entry other = owners.put(t.name(), e);
                if (other != null) {
                    throw new IllegalArgumentException("MCP servers " + other.settings.key() + " and " + e.settings.key() + " both offer a tool named '"
                            + t.name() + "': give one a prefix of its own (" + e.settings.key() + ".prefix)");
                }
                all.add(t);
            }
        }
        this.tools = List.copyOf(all);
        this.byTool = Map.copyOf(owners);
        this.hook = new Thread(() -> stopAll(false), "agentswarm-mcp-shutdown");
    }

    /** No servers. */
    public static McpServers none() {
        return new McpServers(List.of());
    }

    /**
     * Starts the servers of {@code settings}, waits until each has listed its tools or failed, and
     * returns them; records calls and restarts on {@code registry}. Fails only when two servers offer
     * the same name (then everything started is stopped first).
     */
    public static McpServers start(McpSettings settings, MeterRegistry registry) {
        McpMetrics metrics = new McpMetrics(registry);
        List<Entry> entries = new ArrayList<>();
        List<CompletableFuture<List<McpSchema.Tool>>> starts = new ArrayList<>();
        long wait = 0;
        for (McpSettings.Server s : settings.servers()) {
            Entry e = new Entry(s, metrics);
            entries.add(e);
            starts.add(e.startFirst());
            wait = Math.max(wait, s.startTimeout().toMillis());
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            try {
                // Each start ends by its own limit; this one is a backstop.
                starts.get(i).get(wait + 10_000, TimeUnit.MILLISECONDS);
                e.offer();
            } catch (Exception x) {
                e.failedToStart(McpFailures.message(x instanceof java.util.concurrent.ExecutionException ? x.getCause() : x));
            }
        }
        McpServers servers;
        try {
            servers = new McpServers(List.copyOf(entries));
        } catch (RuntimeException x) {
            for (Entry e : entries) e.stop(false);
            throw x;
        }
        if (!entries.isEmpty()) Runtime.getRuntime().addShutdownHook(servers.hook);
        return servers;
    }

    /** The tools of every server that started, in the order of the servers' names and of each server's list. */
    public List<Tool> tools() {
        return tools;
    }

    /** The server ({@code agentswarm.mcp.servers} name) that offers {@code toolName}, if one does. */
    public Optional<String> serverOf(String toolName) {
        Entry e = byTool.get(toolName);
        return e == null ? Optional.empty() : Optional.of(e.settings.name());
    }

    /** Every configured server and how its start went. */
    public List<ServerStatus> servers() {
        return entries.stream().map(Entry::status).toList();
    }

    /** A server's settings, by name. */
    public Optional<McpSettings.Server> settings(String server) {
        return entries.stream().filter(e -> e.settings.name().equals(server)).map(e -> e.settings).findFirst();
    }

    /** The process of shared server {@code server} now (null when it runs none): tests kill it. */
    public ProcessHandle process(String server) {
        Entry e = entry(server);
        return e.shared == null ? null : e.shared.process();
    }

    /** The process of per-episode server {@code server} for {@code episodeId} now, or null. */
    public ProcessHandle process(String server, String episodeId) {
        McpServer s = entry(server).episodes.get(episodeId);
        return s == null ? null : s.process();
    }

    /** Episodes that have a process of per-episode server {@code server} now. */
    public int episodeInstances(String server) {
        return entry(server).episodes.size();
    }

    private Entry entry(String server) {
        for (Entry e : entries) if (e.settings.name().equals(server)) return e;
        throw new IllegalArgumentException("no MCP server named '" + server + "'");
    }

    /** Stops every server (gracefully, in parallel, a few seconds at most) and their children. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // shutting down already, or never added
        }
        stopAll(true);
    }

    private void stopAll(boolean gracefully) {
        List<CompletableFuture<Void>> stops = new ArrayList<>();
        for (Entry e : entries) stops.add(e.stop(gracefully));
        try {
            CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new)).get(gracefully ? 5 : 2, TimeUnit.SECONDS);
        } catch (Exception e) {
            // what is still running was sent SIGKILL with its children
        }
    }

    /** How a configured server stands: its tools when it started, why not when it did not. */
    public record ServerStatus(String name, String key, String transport, boolean perEpisode, boolean started, String error,
                               List<ToolSpec> tools, List<String> notOffered) {}

    /** One configured server: its running instance(s) and the tools it offers. */
    static final class Entry {
        final McpSettings.Server settings;
        final McpMetrics metrics;
        final Map<String, McpTool> offered = new LinkedHashMap<>();
        final Map<String, McpServer> episodes = new ConcurrentHashMap<>();
        final List<String> notOffered = new ArrayList<>();
        McpServer shared;
        volatile String startError;
        /** The latest listing, its tools that only run as MCP tasks, and whether the node has taken its names yet ({@link #offer}). */
        private List<McpSchema.Tool> latest = List.of();
        private Set<String> taskOnly = Set.of();
        private boolean named;
        private volatile boolean stopped;

        Entry(McpSettings.Server settings, McpMetrics metrics) {
            this.settings = settings;
            this.metrics = metrics;
        }

        /** The shared server, or (per-episode) a first instance that lists the tools and is then stopped. */
        CompletableFuture<List<McpSchema.Tool>> startFirst() {
            McpServer s = new McpServer(settings, settings.name(), metrics, this::listed, true);
            if (settings.perEpisode()) {
                return s.start().whenComplete((tools, e) -> s.close(true));
            }
            shared = s;
            return s.start();
        }

        /** The node offers what the first listing holds. */
        synchronized void offer() {
            named = true;
            warnUnlisted();
            // A list_changed may have come between the first listing and now: the latest is the truth.
            for (McpSchema.Tool t : latest) {
                String problem = badName(t.name());
                if (problem == null) problem = settings.refusal(t.name()); // allow-tools / deny-tools
                if (problem == null && taskOnly.contains(t.name())) {
                    problem = "it only runs as an MCP task (execution.taskSupport = required), which this client does not support";
                }
                if (problem != null) {
                    String line = "MCP server '" + settings.name() + "': tool " + (t.name() == null ? "(no name)" : "'" + t.name() + "'")
                            + " is not offered: " + problem;
                    // A limitation of this client or the node's own choice, not a fault of the server.
                    if (taskOnly.contains(t.name()) || !settings.allows(t.name())) LOG.info(line);
                    else LOG.warn(line);
                    notOffered.add((t.name() == null ? "(no name)" : t.name()) + " (" + problem + ")");
                    continue;
                }
                if (offered.containsKey(t.name())) {
                    notOffered.add(t.name() + " (listed twice)");
                    continue;
                }
                offered.put(t.name(), new McpTool(this, t));
            }
        }

        /** allow-tools names the first listing lacks: a typo would otherwise offer nothing and say nothing. */
        private void warnUnlisted() {
            Set<String> names = new java.util.HashSet<>();
            for (McpSchema.Tool t : latest) names.add(t.name());
            List<String> absent = settings.allowTools().stream().filter(n -> !names.contains(n)).sorted().toList();
            if (!absent.isEmpty()) {
                LOG.warn("MCP server '{}' does not list {} of {}.allow-tools", settings.name(), absent, settings.key());
            }
        }

        /** A later listing (restart, list_changed, a per-episode instance): specs updated, names kept. */
        synchronized void listed(List<McpSchema.Tool> listed, Set<String> taskOnly) {
            latest = listed;
            this.taskOnly = taskOnly;
            if (!named) return; // the first listing: offer() takes its names
            Map<String, McpSchema.Tool> byName = new HashMap<>();
            for (McpSchema.Tool t : listed) if (t.name() != null && !taskOnly.contains(t.name())) byName.put(t.name(), t);
            for (McpTool tool : offered.values()) {
                McpSchema.Tool now = byName.remove(tool.mcpName());
                if (now != null) {
                    tool.update(now);
                } else if (tool.listed()) {
                    tool.unlisted();
                    LOG.warn("MCP server '{}' no longer lists tool '{}': calls to {} fail until it does", settings.name(), tool.mcpName(), tool.name());
                }
            }
            List<String> fresh = new ArrayList<>();
            for (String name : byName.keySet()) {
                if (notOffered.stream().anyMatch(n -> n.startsWith(name + " ("))) continue; // said already
                String entry = name + " (listed after the node started: restart the node to offer it)";
                if (!notOffered.contains(entry)) {
                    notOffered.add(entry);
                    fresh.add(name);
                }
            }
            if (!fresh.isEmpty()) {
                LOG.warn("MCP server '{}' now lists tool(s) {} that episodes are not offered: a node offers the tools its"
                        + " servers listed when it started; restart it to offer these", settings.name(), fresh.stream().sorted().toList());
            }
        }

        void failedToStart(String why) {
            startError = why;
            LOG.error("{}; the node runs without its tools (check {}: {})", why, settings.key(), settings.describe());
            stop(false);
        }

        /** The server an episode's call goes to: the shared one, or the episode's own, started on its first call. */
        McpServer server(String episodeId) {
            if (!settings.perEpisode()) return shared;
            return episodes.computeIfAbsent(episodeId, id -> {
                McpServer s = new McpServer(settings, settings.name() + " (episode " + id + ")", metrics, this::listed);
                if (stopped) {
                    s.close(false);
                } else {
                    s.start().exceptionally(e -> null); // calls wait for it, or read why it failed
                }
                return s;
            });
        }

        void release(String episodeId) {
            if (!settings.perEpisode()) return;
            McpServer s = episodes.remove(episodeId);
            if (s != null) s.close(true);
        }

        CompletableFuture<Void> stop(boolean gracefully) {
            stopped = true;
            List<CompletableFuture<Void>> stops = new ArrayList<>();
            if (shared != null) stops.add(shared.close(gracefully));
            for (String id : List.copyOf(episodes.keySet())) {
                McpServer s = episodes.remove(id);
                if (s != null) stops.add(s.close(gracefully));
            }
            return CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new));
        }

        synchronized ServerStatus status() {
            List<ToolSpec> specs = offered.values().stream().map(McpTool::spec).toList();
            return new ServerStatus(settings.name(), settings.key(), settings.describe(), settings.perEpisode(), startError == null,
                    startError, specs, List.copyOf(notOffered));
        }

        /** Why a listed name cannot be offered, or null: names go into prompts and tool-call formats. */
        static String badName(String name) {
            if (name == null || name.isEmpty()) return "it has no name";
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                if (Character.isWhitespace(c) || Character.isISOControl(c)) return "its name has a space or a control character";
            }
            return null;
        }
    }
}
