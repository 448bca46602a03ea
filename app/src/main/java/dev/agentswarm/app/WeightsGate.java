package dev.agentswarm.app;

import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.core.protocol.WeightsProtocol.FetcherCommand;
import dev.agentswarm.core.protocol.WeightsProtocol.SourceCommand;
import dev.agentswarm.workers.WeightsFetcher;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Keeps a node that joins from taking work before it serves the cluster's current weights: it
 * finds the weights source of every learner node, asks each for the newest version it holds, and
 * waits until the node's fetcher serves that version. A cluster without a learner has no newer
 * weights: the node serves the ones it was started with at once.
 */
final class WeightsGate {

    private WeightsGate() {}

    /** Blocks until {@code fetcher} serves the newest version held by the {@code learners} learner nodes' sources. */
    static long awaitCurrent(ActorSystem<?> system, ActorRef<FetcherCommand> fetcher, int learners, Duration limit)
            throws TimeoutException, InterruptedException {
        if (learners == 0) return 0;
        long deadline = System.nanoTime() + limit.toNanos();
        Set<ActorRef<SourceCommand>> sources = Set.of();
        // The Receptionist's listing spreads through the cluster a moment after a node joins.
        while (sources.size() < learners) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("found " + sources.size() + " of the " + learners + " learner nodes' weights sources within "
                        + limit.toSeconds() + " s");
            }
            sources = ask(system, AskPattern.<Receptionist.Command, Receptionist.Listing>ask(system.receptionist(),
                    r -> Receptionist.find(WeightsProtocol.SOURCE_KEY, r), Duration.ofSeconds(5), system.scheduler()))
                    .getServiceInstances(WeightsProtocol.SOURCE_KEY);
            if (sources.size() < learners) Thread.sleep(50);
        }
        long newest = 0;
        for (ActorRef<SourceCommand> s : sources) {
            FetcherCommand reply = ask(system, AskPattern.<SourceCommand, FetcherCommand>ask(s, WeightsProtocol.GetLatest::new,
                    remaining(deadline), system.scheduler()));
            if (reply instanceof WeightsProtocol.Latest l && l.notice() != null) newest = Math.max(newest, l.notice().version());
        }
        if (newest == 0) return 0;
        return ask(system, WeightsFetcher.awaitVersion(fetcher, newest, remaining(deadline), system.scheduler())).version();
    }

    private static Duration remaining(long deadlineNanos) {
        return Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(100), deadlineNanos - System.nanoTime()));
    }

    private static <T> T ask(ActorSystem<?> system, java.util.concurrent.CompletionStage<T> reply) throws TimeoutException {
        try {
            return reply.toCompletableFuture().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted while waiting for the current weights");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new TimeoutException("no current weights: " + e.getCause());
        }
    }
}
