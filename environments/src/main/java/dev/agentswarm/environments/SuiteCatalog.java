package dev.agentswarm.environments;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.agentswarm.environments.arithmetic.ArithmeticSuite;
import dev.agentswarm.environments.multihop.MultihopSuite;
import dev.agentswarm.environments.multihop.QaDatasetSuite;
import dev.agentswarm.environments.plugins.PluginSuite;
import dev.agentswarm.environments.sql.DbBenchSuite;
import dev.agentswarm.environments.sql.SqlSuite;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Every suite this build knows, by name, and how each is made from its configuration block
 * ({@code agentswarm.environments.<name>}). A node offers the ones listed in {@code enabled}.
 */
public final class SuiteCatalog {

    public static final String CONFIG_PATH = "agentswarm.environments";

    private static final Map<String, Function<Config, Suite>> FACTORIES = new LinkedHashMap<>();

    static {
        FACTORIES.put(ArithmeticSuite.NAME, ArithmeticSuite::fromConfig);
        FACTORIES.put(PluginSuite.NAME, PluginSuite::fromConfig);
        FACTORIES.put(MultihopSuite.NAME, MultihopSuite::fromConfig);
        FACTORIES.put(QaDatasetSuite.MUSIQUE, QaDatasetSuite::musique);
        FACTORIES.put(QaDatasetSuite.HOTPOTQA, QaDatasetSuite::hotpotqa);
        FACTORIES.put(SqlSuite.NAME, SqlSuite::fromConfig);
        FACTORIES.put(DbBenchSuite.NAME, DbBenchSuite::fromConfig);
    }

    private SuiteCatalog() {}

    public static List<String> known() {
        return List.copyOf(FACTORIES.keySet());
    }

    /** The suites named in {@code agentswarm.environments.enabled}, each built from its own block. */
    public static Suites fromConfig(Config root) {
        Config c = root.getConfig(CONFIG_PATH);
        List<Suite> suites = new ArrayList<>();
        for (String name : c.getStringList("enabled")) suites.add(build(c, name));
        return new Suites(suites);
    }

    /** One suite by name, whether enabled or not (the CLI's --suite). */
    public static Suite one(Config root, String name) {
        return build(root.getConfig(CONFIG_PATH), name);
    }

    private static Suite build(Config environments, String name) {
        Function<Config, Suite> factory = FACTORIES.get(name);
        if (factory == null) throw new IllegalArgumentException("unknown suite \"" + name + "\"; known suites: " + known());
        try {
            return factory.apply(environments.getConfig(name));
        } catch (ConfigException e) {
            throw new IllegalArgumentException("suite " + name + ": bad configuration: " + e.getMessage(), e);
        }
    }
}
