package dev.agentswarm.orchestrator.swarm;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigIncludeContext;
import com.typesafe.config.ConfigIncluder;
import com.typesafe.config.ConfigIncluderClasspath;
import com.typesafe.config.ConfigIncluderFile;
import com.typesafe.config.ConfigIncluderURL;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.io.File;
import java.net.URL;
import java.util.Map;
import java.util.Set;

/**
 * The swarm settings a client sends with {@link SwarmEntity.Start}, read as what they are: text from
 * another member, not the node's own configuration. Parsed with every kind of {@code include} refused
 * (a file, a URL or a resource of the node would otherwise be read into the swarm's settings), resolved
 * alone, without the node's configuration, its system properties or its environment (so
 * {@code ${agentswarm.policy.openai.api-key}} or {@code ${PGPASSWORD}} cannot be copied into, say, a
 * system prompt that goes to a model), and only {@code agentswarm.swarm} and {@code agentswarm.episode}
 * are taken. The node's own settings stay under them as the fallback.
 */
public final class ClientSwarmConfig {

    /** The settings a client may set; everything else of the node is the node's. */
    public static final Set<String> ALLOWED = Set.of("swarm", "episode");

    /** Far above any real swarm's settings (a few KiB), far below what would strain a node. */
    public static final int MAX_CHARS = 256 * 1024;

    private ClientSwarmConfig() {}

    /** The client's settings in {@code hocon}, or an {@link IllegalArgumentException} naming what is refused. */
    public static Config parse(String hocon) {
        if (hocon == null) throw new IllegalArgumentException("a swarm's settings are missing");
        if (hocon.length() > MAX_CHARS) {
            throw new IllegalArgumentException("a swarm's settings are " + hocon.length() + " characters, more than " + MAX_CHARS);
        }
        Config parsed;
        try {
            parsed = ConfigFactory.parseString(hocon, ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF)
                    .setOriginDescription("a client's swarm settings").setIncluder(new NoIncludes()).setAllowMissing(false));
        } catch (IncludeRefused e) {
            throw new IllegalArgumentException(e.getMessage());
        } catch (ConfigException e) {
            throw new IllegalArgumentException("a swarm's settings do not parse: " + e.getMessage());
        }
        checkKeys(parsed.root());
        try {
            return parsed.resolve(ConfigResolveOptions.noSystem());
        } catch (ConfigException.UnresolvedSubstitution e) {
            throw new IllegalArgumentException("a swarm's settings may not refer to other settings or the environment (${…}),"
                    + " they are resolved alone: " + e.getMessage());
        } catch (ConfigException e) {
            throw new IllegalArgumentException("a swarm's settings do not resolve alone: " + e.getMessage());
        }
    }

    private static void checkKeys(ConfigObject root) {
        for (Map.Entry<String, ConfigValue> top : root.entrySet()) {
            if (!top.getKey().equals("agentswarm")) throw refusedKey(top.getKey());
            if (top.getValue().valueType() != ConfigValueType.OBJECT) throw refusedKey("agentswarm");
            for (String key : ((ConfigObject) top.getValue()).keySet()) {
                if (!ALLOWED.contains(key)) throw refusedKey("agentswarm." + key);
            }
        }
    }

    private static IllegalArgumentException refusedKey(String key) {
        return new IllegalArgumentException("a swarm's settings may set only agentswarm.swarm and agentswarm.episode, not "
                + key + " (the node's own)");
    }

    /** Thrown by {@link NoIncludes}, so that the parser's own wrapping does not hide what was refused. */
    private static final class IncludeRefused extends ConfigException {
        IncludeRefused(String what) {
            super("a swarm's settings may not include anything (include " + what + "): they are parsed alone on the node");
        }
    }

    /**
     * Refuses every include. It implements the file, URL and classpath forms too: for a form its includer
     * does not implement, the parser falls back to its own, which would read the file.
     */
    private static final class NoIncludes implements ConfigIncluder, ConfigIncluderFile, ConfigIncluderURL, ConfigIncluderClasspath {
        @Override
        public ConfigIncluder withFallback(ConfigIncluder fallback) {
            return this;
        }

        @Override
        public ConfigObject include(ConfigIncludeContext context, String what) {
            throw new IncludeRefused("\"" + what + "\"");
        }

        @Override
        public ConfigObject includeFile(ConfigIncludeContext context, File what) {
            throw new IncludeRefused("file(\"" + what + "\")");
        }

        @Override
        public ConfigObject includeURL(ConfigIncludeContext context, URL what) {
            throw new IncludeRefused("url(\"" + what + "\")");
        }

        @Override
        public ConfigObject includeResources(ConfigIncludeContext context, String what) {
            throw new IncludeRefused("classpath(\"" + what + "\")");
        }
    }
}
