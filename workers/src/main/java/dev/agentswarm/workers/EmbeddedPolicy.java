package dev.agentswarm.workers;

import dev.agentswarm.core.concurrent.Stages;
import dev.agentswarm.core.context.TokenCounter;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.policy.chat.ChatFormat;
import com.typesafe.config.Config;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import dev.agentswarm.core.protocol.WeightsProtocol;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * Core's {@link Policy} on the node's {@link PolicyServer}: renders the conversation with the chat
 * template, asks the server, and turns its {@link Generation} into a {@link Completion} carrying the
 * exact token ids, their log-probs and the policy version. Cancelling the returned future (an
 * episode's deadline) cancels the generation, freeing its batch slot.
 */
public final class EmbeddedPolicy implements Policy {

    private final ActorRef<PolicyServer.Command> server;
    private final ChatFormat template;
    private final Scheduler scheduler;
    private final Duration timeout;
    private final String description;
    private final int[] stopIds;
    private final AtomicLong requestIds = new AtomicLong();
    private final ActorRef<WeightsProtocol.FetcherCommand> weights;
    /** Episodes whose next prompt extends their last one; this many are remembered. */
    private static final int EPISODES_REMEMBERED = 4096;
    private final EpisodeContexts contexts;

    public EmbeddedPolicy(ActorRef<PolicyServer.Command> server, ChatFormat template, Scheduler scheduler,
                          Duration timeout, String description) {
        this(server, template, scheduler, timeout, description, null);
    }

    /** @param weights the node's {@link WeightsFetcher} feeding {@code server}, or null when none does */
    public EmbeddedPolicy(ActorRef<PolicyServer.Command> server, ChatFormat template, Scheduler scheduler,
                          Duration timeout, String description, ActorRef<WeightsProtocol.FetcherCommand> weights) {
        this.weights = weights;
        this.server = server;
        this.template = template;
        this.scheduler = scheduler;
        this.timeout = timeout;
        this.description = description;
        this.stopIds = template.stopTokenIds();
        this.contexts = new EpisodeContexts(template, EPISODES_REMEMBERED);
    }

    @Override
    public CompletionStage<Completion> complete(CompletionRequest request) {
        long id = requestIds.incrementAndGet();
        CompletableFuture<Completion> result = new CompletableFuture<>();
        int[] prompt;
        try {
            prompt = contexts.prompt(request);
        } catch (RuntimeException e) {
            result.completeExceptionally(new PolicyException("cannot render the conversation: " + e.getMessage(), false, e));
            return result;
        }
        Stages.direct(AskPattern.<PolicyServer.Command, PolicyServer.Reply>ask(server,
                        replyTo -> new PolicyServer.Generate(id, prompt, request.sampling(), stopIds, replyTo), timeout, scheduler))
                .whenComplete((reply, error) -> {
                    if (error != null) {
                        boolean timedOut = error instanceof TimeoutException || error.getCause() instanceof TimeoutException;
                        if (timedOut) server.tell(new PolicyServer.Cancel(id));
                        result.completeExceptionally(new PolicyException(timedOut
                                ? "the embedded model did not answer within " + timeout : "policy server: " + error, true, error));
                    } else if (reply instanceof PolicyServer.Generated g) {
                        contexts.answered(request, prompt, g.generation().tokens());
                        result.complete(completionOf(g.generation(), prompt));
                    } else if (reply instanceof PolicyServer.Rejected r) {
                        result.completeExceptionally(new PolicyException(r.reason(), r.reason().contains("queue full")));
                    }
                });
        result.whenComplete((c, e) -> {
            if (result.isCancelled()) server.tell(new PolicyServer.Cancel(id));
        });
        return result;
    }

    /**
     * Loads the embedded model from {@code agentswarm.policy.embedded}, spawns the node's policy server
     * on its dispatcher and the node's {@link WeightsFetcher}, which keeps the server on the newest
     * weights the learner published, and returns the policy that talks to the server. The model is
     * freed when the actor system terminates.
     */
    public static EmbeddedPolicy spawn(ActorSystem<?> system, Config config) {
        EmbeddedModel model = EmbeddedModel.fromConfig(config);
        GeneratorSettings settings = GeneratorSettings.fromConfig(config);
        ActorRef<PolicyServer.Command> server = system.systemActorOf(PolicyServer.create(() -> model.newGenerator(settings)),
                "policy-server", DispatcherSelector.fromConfig("agentswarm.policy-server-dispatcher"));
        system.getWhenTerminated().thenRun(model::close);
        // The server follows the weights the learner publishes, wherever it runs: the fetcher pulls them.
        ActorRef<WeightsProtocol.FetcherCommand> weights = WeightsFetcher.spawn(system, config, server, model.version(),
                WeightsAcceptance.maxBytes(model.model()));
        Duration timeout = config.getDuration(EmbeddedModel.CONFIG_PATH + ".request-timeout");
        return new EmbeddedPolicy(server, model.template(), system.scheduler(), timeout,
                model.describe() + " v" + model.version(), weights);
    }

    /**
     * The node's {@link WeightsFetcher} (null when this policy was built without one): gate work on
     * {@link WeightsFetcher#awaitCurrent} or {@link WeightsFetcher#awaitVersion} with it.
     */
    public ActorRef<WeightsProtocol.FetcherCommand> weights() {
        return weights;
    }

    /** The node's policy server this policy asks: other clients of the node (swarm serve) ask it too. */
    public ActorRef<PolicyServer.Command> server() {
        return server;
    }

    /** How conversations become the served model's prompt ids. */
    public ChatFormat chatFormat() {
        return template;
    }

    /** How long one generation may take before it is cancelled ({@code agentswarm.policy.embedded.request-timeout}). */
    public Duration timeout() {
        return timeout;
    }

    static Completion completionOf(Generation g, int[] prompt) {
        return new Completion(g.text(), List.of(), g.tokens(), g.logprobs(), g.finishReason(), g.firstVersion(),
                g.promptTokens(), g.tokens().length, g.lastVersion(), prompt);
    }

    @Override
    public TokenCounter tokenCounter() {
        return template.tokenizer();
    }

    @Override
    public String describe() {
        return description;
    }
}
