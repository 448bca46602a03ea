package dev.agentswarm.app.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "version", mixinStandardHelpOptions = true, description = "Print the versions of agentswarm, Java and Pekko.")
public final class VersionCommand implements Callable<Integer> {

    @Mixin
    JsonOption json;

    @Override
    public Integer call() {
        var r = new Report();
        r.put("agentswarm", agentswarmVersion());
        r.put("java", Runtime.version().toString());
        r.put("pekko", org.apache.pekko.Version.current());
        r.line("agentswarm " + agentswarmVersion() + " (Java " + Runtime.version() + ", Pekko " + org.apache.pekko.Version.current() + ")");
        r.print(json.json);
        return 0;
    }

    static String agentswarmVersion() {
        String v = VersionCommand.class.getPackage().getImplementationVersion();
        return v != null ? v : "0.1.0-SNAPSHOT";
    }

    /** Backs {@code swarm --version}. */
    public static final class Provider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"agentswarm " + agentswarmVersion()};
        }
    }
}
