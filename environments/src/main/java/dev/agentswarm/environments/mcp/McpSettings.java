package dev.agentswarm.environments.mcp;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The MCP servers of a node, from {@code agentswarm.mcp}: each block of {@code servers} over
 * {@code defaults}. Everything wrong is refused here, before a process starts, with the key that is
 * wrong in the message: neither {@code command} nor {@code url}, both, an empty command, a url that
 * is not http(s), a value of the wrong type, a key this build does not know.
 */
public record McpSettings(List<Server> servers) {

    public static final String PATH = "agentswarm.mcp";
    /** In a prefix, replaced by the server's name: the default {@code "{server}."} offers tool t of server s as {@code s.t}. */
    public static final String SERVER_PLACEHOLDER = "{server}";

    private static final Set<String> SERVER_KEYS = Set.of("command", "env", "cwd", "url", "headers", "folders",
            "read-only-folders", "allow-tools", "deny-tools");
    private static final Set<String> DEFAULT_KEYS = Set.of("prefix", "per-episode", "start-timeout", "call-timeout",
            "ping-timeout", "restart-backoff", "max-message-size", "sandbox", "network");

    /**
     * One server: started with {@code command} (stdio: its stdin and stdout carry JSON-RPC, one message a
     * line) or reached at {@code url} (Streamable HTTP).
     */
    public record Server(String name, List<String> command, Map<String, String> env, Path cwd, URI url,
                         Map<String, String> headers, String prefix, boolean perEpisode, Duration startTimeout,
                         Duration callTimeout, Duration pingTimeout, Duration backoffMin, Duration backoffMax,
                         int maxMessageChars, Jail jail, Set<String> allowTools, Set<String> denyTools) {

        /** Whether the node offers its tool {@code tool}: in {@code allow-tools} (when given) and not in {@code deny-tools}. */
        public boolean allows(String tool) {
            return (allowTools.isEmpty() || allowTools.contains(tool)) && !denyTools.contains(tool);
        }

        /** Why tool {@code tool} is not offered by configuration, or null when it is. */
        public String refusal(String tool) {
            if (denyTools.contains(tool)) return "it is in " + key() + ".deny-tools";
            if (!allowTools.isEmpty() && !allowTools.contains(tool)) return "it is not in " + key() + ".allow-tools";
            return null;
        }

        public boolean stdio() {
            return command != null;
        }

        /** The configuration key of this server, for messages: {@code agentswarm.mcp.servers.NAME}. */
        public String key() {
            return key(name);
        }

        static String key(String name) {
            return ConfigUtil.joinPath("agentswarm", "mcp", "servers", name);
        }

        /** The name a tool of this server is offered under. */
        public String offeredName(String tool) {
            return prefix + tool;
        }

        /** What it is, for people: the command line or the url. */
        public String describe() {
            return stdio() ? String.join(" ", command) : url.toString();
        }
    }

    /**
     * A stdio server started under bubblewrap ({@code sandbox = true}): it sees the system folders
     * read-only, {@code folders} read-write and {@code readOnlyFolders} read-only at their own paths,
     * a private {@code /tmp}, and the network only with {@code network = true}.
     */
    public record Jail(String bwrapPath, boolean network, List<Path> folders, List<Path> readOnlyFolders) {}

    /** No servers: a node without MCP. */
    public static final McpSettings NONE = new McpSettings(List.of());

    /** The servers configured under {@code agentswarm.mcp} of {@code root}; none when the block is absent. */
    public static McpSettings fromConfig(Config root) {
        if (!root.hasPath(PATH)) return NONE;
        Config mcp = root.getConfig(PATH);
        for (String k : mcp.root().keySet()) {
            if (!k.equals("defaults") && !k.equals("servers")) {
                throw new IllegalArgumentException(PATH + "." + k + " is unknown (known: defaults, servers)");
            }
        }
        Config defaults = mcp.hasPath("defaults") ? mcp.getConfig("defaults") : com.typesafe.config.ConfigFactory.empty();
        checkKeys(defaults.root(), PATH + ".defaults", DEFAULT_KEYS);
        if (!mcp.hasPath("servers")) return NONE;
        ConfigValue serversValue = mcp.root().get("servers");
        if (!(serversValue instanceof ConfigObject serversObject)) {
            throw new IllegalArgumentException(PATH + ".servers must be a block of servers by name, such as"
                    + " servers.fs { command = [\"npx\", \"-y\", \"@modelcontextprotocol/server-filesystem\", \"/data\"] }");
        }
        // A sandboxed server runs under the same bubblewrap as the node's code sandbox.
        String bwrap = root.hasPath("agentswarm.sandbox.bwrap-path") ? root.getString("agentswarm.sandbox.bwrap-path") : "/usr/bin/bwrap";
        List<Server> out = new ArrayList<>();
        for (String name : serversObject.keySet().stream().sorted().toList()) {
            String key = Server.key(name);
            ConfigValue v = serversObject.get(name);
            if (!(v instanceof ConfigObject block)) {
                throw new IllegalArgumentException(key + " must be a block such as { command = [\"npx\", \"-y\", \"PACKAGE\"] }"
                        + " or { url = \"http://HOST:PORT/mcp\" }, got " + v.valueType().name().toLowerCase(java.util.Locale.ROOT));
            }
            out.add(server(name, key, block.toConfig().withFallback(defaults), block, bwrap));
        }
        return new McpSettings(List.copyOf(out));
    }

    private static Server server(String name, String key, Config c, ConfigObject own, String bwrap) {
        if (name.isBlank()) throw new IllegalArgumentException(key + ": a server needs a name");
        Set<String> known = new java.util.TreeSet<>(SERVER_KEYS);
        known.addAll(DEFAULT_KEYS);
        checkKeys(own, key, known);
        boolean hasCommand = own.containsKey("command");
        boolean hasUrl = own.containsKey("url");
        if (hasCommand == hasUrl) {
            throw new IllegalArgumentException(key + (hasCommand ? " has both command and url: give one (command starts the server"
                    + " and talks to it on stdio; url reaches a running one over Streamable HTTP)"
                    : " needs command = [\"PROGRAM\", \"ARG\", …] (a server started on stdio) or url = \"http://HOST:PORT/mcp\""
                    + " (Streamable HTTP)"));
        }
        List<String> command = null;
        Map<String, String> env = Map.of();
        Path cwd = null;
        URI url = null;
        Map<String, String> headers = Map.of();
        if (hasCommand) {
            command = strings(own.get("command"), key + ".command");
            if (command.isEmpty() || command.get(0).isBlank()) {
                throw new IllegalArgumentException(key + ".command is empty: give the program and its arguments, such as"
                        + " [\"npx\", \"-y\", \"@modelcontextprotocol/server-filesystem\", \"/data\"]");
            }
            env = stringMap(own.get("env"), key + ".env");
            if (own.containsKey("cwd")) cwd = Path.of(string(own.get("cwd"), key + ".cwd"));
            if (own.containsKey("headers")) throw new IllegalArgumentException(key + ".headers is for a url server (HTTP headers)");
        } else {
            url = url(string(own.get("url"), key + ".url"), key + ".url");
            headers = stringMap(own.get("headers"), key + ".headers");
            if (own.containsKey("env") || own.containsKey("cwd")) {
                throw new IllegalArgumentException(key + (own.containsKey("env") ? ".env" : ".cwd")
                        + " is for a server started with command; a url server runs elsewhere");
            }
        }
        String prefix = c.hasPath("prefix") ? string(c.getValue("prefix"), key + ".prefix").replace(SERVER_PLACEHOLDER, name)
                : name + ".";
        for (int i = 0; i < prefix.length(); i++) {
            if (Character.isWhitespace(prefix.charAt(i)) || Character.isISOControl(prefix.charAt(i))) {
                throw new IllegalArgumentException(key + ".prefix must not contain spaces or control characters (tool names go into"
                        + " prompts and tool calls), got \"" + prefix + "\"");
            }
        }
        Jail jail = jail(c, own, key, hasCommand, cwd, bwrap);
        Set<String> allow = toolNames(own, "allow-tools", key);
        Set<String> deny = toolNames(own, "deny-tools", key);
        for (String both : allow) {
            if (deny.contains(both)) {
                throw new IllegalArgumentException(key + ": tool '" + both + "' is in both allow-tools and deny-tools");
            }
        }
        boolean perEpisode = c.hasPath("per-episode") && bool(c.getValue("per-episode"), key + ".per-episode");
        if (perEpisode && !hasCommand) {
            throw new IllegalArgumentException(key + ".per-episode = true needs a command: a process is started for each episode");
        }
        Duration start = duration(c, "start-timeout", key, Duration.ofSeconds(30));
        Duration call = duration(c, "call-timeout", key, Duration.ofSeconds(60));
        Duration ping = duration(c, "ping-timeout", key, Duration.ofSeconds(5));
        Duration min = Duration.ofMillis(500);
        Duration max = Duration.ofSeconds(30);
        if (c.hasPath("restart-backoff")) {
            ConfigValue b = c.getValue("restart-backoff");
            if (!(b instanceof ConfigObject bo)) {
                throw new IllegalArgumentException(key + ".restart-backoff must be a block such as { min = 500ms, max = 30s }");
            }
            checkKeys(bo, key + ".restart-backoff", Set.of("min", "max"));
            Config bc = bo.toConfig();
            min = duration(bc, "min", key + ".restart-backoff", min);
            max = duration(bc, "max", key + ".restart-backoff", max);
        }
        if (max.compareTo(min) < 0) {
            throw new IllegalArgumentException(key + ".restart-backoff: max (" + max.toMillis() + " ms) is less than min ("
                    + min.toMillis() + " ms)");
        }
        int maxMessage = 16 * 1024 * 1024;
        if (c.hasPath("max-message-size")) {
            try {
                long bytes = c.getBytes("max-message-size");
                if (bytes < 1024 || bytes > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException(key + ".max-message-size must be between 1KiB and 2GiB, got " + bytes + " bytes");
                }
                maxMessage = (int) bytes;
            } catch (ConfigException.BadValue | ConfigException.WrongType e) {
                throw new IllegalArgumentException(key + ".max-message-size must be a size such as 16MiB, got "
                        + show(c.getValue("max-message-size")));
            }
        }
        return new Server(name, command == null ? null : List.copyOf(command), env, cwd, url, headers, prefix, perEpisode,
                start, call, ping, min, max, maxMessage, jail, allow, deny);
    }

    /** The jail of a server with {@code sandbox = true}, else null; folders and network without it are refused. */
    private static Jail jail(Config c, ConfigObject own, String key, boolean hasCommand, Path cwd, String bwrap) {
        boolean sandbox = c.hasPath("sandbox") && bool(c.getValue("sandbox"), key + ".sandbox");
        boolean network = c.hasPath("network") && bool(c.getValue("network"), key + ".network");
        if (!sandbox) {
            for (String k : List.of("folders", "read-only-folders", "network")) {
                if (own.containsKey(k)) {
                    throw new IllegalArgumentException(key + "." + k + " is for a server with sandbox = true (without it the server"
                            + " runs as the node's user and sees every folder and the network)");
                }
            }
            return null;
        }
        if (!hasCommand) {
            throw new IllegalArgumentException(key + ".sandbox = true needs a command: a url server runs elsewhere, beyond this node's reach");
        }
        List<Path> rw = folders(own, "folders", key);
        List<Path> ro = folders(own, "read-only-folders", key);
        if (cwd != null && Stream.concat(rw.stream(), ro.stream()).noneMatch(f -> cwd.toAbsolutePath().normalize().startsWith(f))) {
            throw new IllegalArgumentException(key + ".cwd (" + cwd + ") is not inside folders or read-only-folders: the sandboxed"
                    + " server would not see it");
        }
        return new Jail(bwrap, network, rw, ro);
    }

    private static List<Path> folders(ConfigObject own, String name, String key) {
        if (!own.containsKey(name)) return List.of();
        List<Path> out = new ArrayList<>();
        for (String f : strings(own.get(name), key + "." + name)) {
            Path p = Path.of(f);
            if (!p.isAbsolute() || !p.normalize().equals(p) || p.getNameCount() == 0) {
                throw new IllegalArgumentException(key + "." + name + " takes absolute folders other than /, without . or .., got \"" + f + "\"");
            }
            out.add(p);
        }
        return List.copyOf(out);
    }

    private static Set<String> toolNames(ConfigObject own, String name, String key) {
        if (!own.containsKey(name)) return Set.of();
        return Set.copyOf(strings(own.get(name), key + "." + name));
    }

    private static void checkKeys(ConfigObject o, String key, Set<String> known) {
        for (String k : o.keySet()) {
            if (!known.contains(k)) {
                throw new IllegalArgumentException(key + "." + k + " is unknown (known: " + String.join(", ", new java.util.TreeSet<>(known)) + ")");
            }
        }
    }

    private static Duration duration(Config c, String path, String key, Duration fallback) {
        if (!c.hasPath(path)) return fallback;
        Duration d;
        try {
            d = c.getDuration(path);
        } catch (ConfigException.BadValue | ConfigException.WrongType e) {
            throw new IllegalArgumentException(key + "." + path + " must be a duration such as 30s or 500ms, got "
                    + show(c.getValue(path)));
        }
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(key + "." + path + " must be positive, got " + d.toMillis() + " ms");
        return d;
    }

    /** A value as one line of HOCON, for messages. */
    private static String show(ConfigValue v) {
        return v.render(com.typesafe.config.ConfigRenderOptions.concise());
    }

    private static String string(ConfigValue v, String key) {
        if (v == null || v.valueType() == ConfigValueType.NULL) throw new IllegalArgumentException(key + " must be a string");
        if (v.valueType() != ConfigValueType.STRING && v.valueType() != ConfigValueType.NUMBER && v.valueType() != ConfigValueType.BOOLEAN) {
            throw new IllegalArgumentException(key + " must be a string, got " + v.valueType().name().toLowerCase(java.util.Locale.ROOT)
                    + " " + show(v));
        }
        return String.valueOf(v.unwrapped());
    }

    private static boolean bool(ConfigValue v, String key) {
        if (v.valueType() == ConfigValueType.BOOLEAN) return (Boolean) v.unwrapped();
        if (v.valueType() == ConfigValueType.STRING) {
            String s = (String) v.unwrapped();
            if (s.equals("true") || s.equals("on") || s.equals("yes")) return true;
            if (s.equals("false") || s.equals("off") || s.equals("no")) return false;
        }
        throw new IllegalArgumentException(key + " must be true or false, got " + show(v));
    }

    private static List<String> strings(ConfigValue v, String key) {
        if (v.valueType() != ConfigValueType.LIST) {
            throw new IllegalArgumentException(key + " must be a list of strings such as [\"npx\", \"-y\", \"PACKAGE\"], got "
                    + v.valueType().name().toLowerCase(java.util.Locale.ROOT) + " " + show(v));
        }
        List<String> out = new ArrayList<>();
        int i = 0;
        for (ConfigValue e : (com.typesafe.config.ConfigList) v) {
            out.add(string(e, key + "[" + i++ + "]"));
        }
        return out;
    }

    private static Map<String, String> stringMap(ConfigValue v, String key) {
        if (v == null) return Map.of();
        if (!(v instanceof ConfigObject o)) {
            throw new IllegalArgumentException(key + " must be a block of NAME = \"value\", got "
                    + v.valueType().name().toLowerCase(java.util.Locale.ROOT) + " " + show(v));
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : o.keySet().stream().sorted().toList()) out.put(k, string(o.get(k), key + "." + k));
        return java.util.Collections.unmodifiableMap(out);
    }

    private static URI url(String text, String key) {
        URI u;
        try {
            u = new URI(text.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(key + " is not a url: " + e.getMessage());
        }
        String scheme = u.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https")) || u.getHost() == null) {
            throw new IllegalArgumentException(key + " must be an http(s) url such as http://127.0.0.1:3001/mcp, got \"" + text + "\"");
        }
        return u;
    }
}
