package dev.agentswarm.app.cli;

import dev.agentswarm.app.SwarmNode;
import org.apache.pekko.actor.Address;
import picocli.CommandLine.Option;

/** {@code --join}: run a job's episodes on a running cluster's worker nodes instead of in this JVM. */
public final class JoinOption {

    @Option(names = "--join", paramLabel = "pekko://swarm@HOST:PORT",
            description = "Run on a running cluster (see swarm node): this JVM joins it as an orchestrator node, the episodes run on its"
                    + " worker nodes with their own policy and tools, and it leaves when the job ends.")
    String join;

    /** The cluster to join, or null to run on a node of this JVM. */
    public Address address() {
        return join == null ? null : SwarmNode.parseAddress(join);
    }
}
