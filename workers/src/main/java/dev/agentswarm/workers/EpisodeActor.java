package dev.agentswarm.workers;

import dev.agentswarm.core.concurrent.Stages;
import dev.agentswarm.core.context.CompressedContext;
import dev.agentswarm.core.environment.ConversationPartner;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.format.ParsedCompletion;
import dev.agentswarm.core.format.ToolCallFormats;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.PromptIds;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.SwarmProtocol;
import dev.agentswarm.core.protocol.ToolCallSummary;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Timing;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * One agent episode: think → act → observe until a final answer, {@code max-turns}, the token
 * budget or the deadline. It asks the policy, parses the completion with the episode's tool-call
 * format, runs the turn's tool calls concurrently, feeds the observations back and repeats.
 *
 * <p>Whatever goes wrong inside a turn — malformed output, an unknown tool, bad arguments, a tool
 * timeout or exception — becomes an observation the policy reads, so it can correct itself; only
 * a failing policy or a limit ends the episode early. It replies exactly once with its
 * {@link Trajectory} and stops.
 *
 * <p>What fails under the policy is not read as its answer: a policy call that may succeed later is
 * retried ({@link PolicyRetry}); one that still fails, a simulated user that fails, a tool whose
 * sandbox or MCP server is down, or a scorer that fails ends the trajectory with its
 * {@link InfraFailure} and no reward, so a training run runs it again instead of training on it.
 */
public final class EpisodeActor extends AbstractBehavior<EpisodeActor.Command> {

    /** Local messages only: an episode is always a child of the worker on its own node. */
    public interface Command extends NoSerializationVerificationNeeded {}

    /** Stop now and reply with what was done so far. */
    public record Cancel(String reason) implements Command {}

    /** Answers handled inline before a message hop (each turn nests two: policy, then tools). */
    private static final int MAX_INLINE_DEPTH = 8;

    private record PolicyAnswered(Completion completion, Throwable failure) implements Command {}

    private record ToolsDone(List<ToolResult> results) implements Command {}

    /** The swarm's journal holds turn {@code turn} (or could not: {@code failure}), so its calls may start. */
    private record TurnRecorded(int turn, Throwable failure) implements Command {}

    /** A call of turn {@code turn} that must not run twice has ended: the swarm hears the results so far. */
    private record CallEnded(int turn) implements Command {}

    private enum DeadlineReached implements Command { INSTANCE }

    /** The policy failed for its infrastructure and the backoff has passed: the same turn is asked again. */
    private enum RetryPolicy implements Command { INSTANCE }

    private record Scored(Trajectory trajectory, RewardBreakdown reward, Throwable failure) implements Command {}

    /** The conversation partner answered the agent's message (or failed to). */
    private record PartnerReplied(ConversationPartner.Reply reply, Throwable failure) implements Command {}

    private final RunEpisode request;
    private final EpisodeSpec spec;
    private final EpisodeSetup setup;
    private final Policy policy;
    private final ActorRef<Trajectory> replyTo;
    private final EpisodeMeters meters;
    private final PolicyRetry retry;
    /** Retries of the current turn's policy call so far. */
    private int policyRetries;
    /** Why the policy failed, while its retry waits for the backoff; null otherwise. */
    private String policyFailing;
    /** Counted in {@code agentswarm.episodes.running} until released. */
    private boolean counted;
    /** The simulated user this episode converses with, or null. */
    private final ConversationPartner partner;
    /** The partner's reply being waited for (a model-played user may take seconds), or null. */
    private CompletableFuture<ConversationPartner.Reply> pendingPartner;
    /** The task's suite environment (its tools' state and its reward), or null; closed when the episode ends. */
    private TaskEnvironment environment;
    private final long startNanos = System.nanoTime();

    private final List<Message> prompt;
    private final List<Message> messages = new ArrayList<>();
    private final List<Turn> turns = new ArrayList<>();
    private int contextTokens;
    private int policyTurns;
    private int budgetUsed;
    private int toolCalls;
    private int toolSuccesses;
    private int formatErrors;
    private int promptTokens;
    private int completionTokens;
    private long turnStartNanos;
    private List<Message> compressedContext;
    /** The last assistant turn's prompt and completion ids, when the policy said its prompt ids. */
    private int[] lastPrompt;
    private int[] lastCompletion;
    private List<CompletableFuture<ToolResult>> pendingTools = List.of();
    private final Cancellable deadline;
    private final long deadlineAtNanos;
    private CompletableFuture<Completion> pendingPolicy;
    private int inlineDepth;
    /** What the episode did before a crash: its steps replace the policy and the tools until they run out. */
    private final List<EpisodeHistory.Step> history;
    /** The recorded step of the turn in progress, or null when the turn is live. */
    private EpisodeHistory.Step replaying;
    /** The completion of the turn whose tool calls are running, when its swarm must hear their results. */
    private Completion stepOpen;
    /** The calls of the turn waiting for the swarm's journal to hold it, and that wait. */
    private List<ToolCall> awaitingRecord;
    private CompletableFuture<SwarmProtocol.Recorded> pendingRecord;
    /** Why the swarm could not journal this turn before its calls, which then do not start; null when it did. */
    private String notRecorded;
    /** Results of the open step already told to the swarm. */
    private int resultsTold;

    /**
     * Starts the episode, or replies at once with {@link StopReason#INVALID_REQUEST} when its
     * format or tools are unknown on this node.
     */
    public static Behavior<Command> create(RunEpisode request, EpisodeServices services, ActorRef<Trajectory> replyTo) {
        return Behaviors.setup(ctx -> create(request, services, replyTo, EpisodeMeters.of(ctx.getSystem())));
    }

    /** As {@link #create(RunEpisode, EpisodeServices, ActorRef)}, recording on the node's {@code meters} (its worker holds them). */
    static Behavior<Command> create(RunEpisode request, EpisodeServices services, ActorRef<Trajectory> replyTo, EpisodeMeters meters) {
        return Behaviors.setup(ctx -> {
            EpisodeSetup setup;
            TaskEnvironment environment = null;
            try {
                environment = services.environments().open(request.task(), request.episodeId()).orElse(null);
                setup = services.setupFor(request.spec(), environment); // the task may bring tools and instructions
            } catch (IllegalArgumentException e) {
                if (environment != null) environment.close();
                meters.finished(StopReason.INVALID_REQUEST);
                replyTo.tell(Trajectory.notRun(request.episodeId(), request.groupId(), request.task().id(),
                        StopReason.INVALID_REQUEST, e.getMessage()));
                return Behaviors.stopped();
            }
            EpisodeActor episode = new EpisodeActor(ctx, request, setup, services.policy(), environment, replyTo, meters,
                    PolicyRetry.of(ctx.getSystem().settings().config()));
            // An episode that ends or fails inside its setup (an in-process policy answers inline) never becomes the
            // actor's behavior, so no PostStop reaches it: it is released here instead.
            Behavior<Command> first;
            try {
                // With a partner, the agent greets and the partner opens; otherwise the policy starts on the task.
                first = episode.partner != null ? episode.talk(episode.partner.greeting()) : episode.askPolicy();
            } catch (RuntimeException e) {
                episode.released();
                throw e;
            }
            if (!Behavior.isAlive(first)) episode.released();
            return first;
        });
    }

    private EpisodeActor(ActorContext<Command> context, RunEpisode request, EpisodeSetup setup, Policy policy,
                         TaskEnvironment environment, ActorRef<Trajectory> replyTo, EpisodeMeters meters, PolicyRetry retry) {
        super(context);
        this.meters = meters;
        this.retry = retry;
        this.environment = environment;
        this.request = request;
        this.spec = request.spec();
        this.setup = setup;
        this.policy = policy;
        this.replyTo = replyTo;
        this.history = request.history().steps();
        this.partner = environment == null ? null : environment.partner();
        messages.add(setup.systemMessage);
        contextTokens = setup.systemTokens;
        if (partner == null) {
            Message task = Message.user(request.task().prompt());
            this.prompt = List.of(setup.systemMessage, task);
            append(task);
        } else { // the task's prompt is the partner's brief, not the agent's: the agent starts with its greeting
            Message greeting = Message.assistant(partner.greeting());
            this.prompt = List.of(setup.systemMessage, greeting);
            append(greeting);
        }
        // A plain scheduled message rather than a timer scheduler: no interceptor on every message.
        this.deadlineAtNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(spec.deadlineMillis());
        this.deadline = context.scheduleOnce(Duration.ofMillis(spec.deadlineMillis()), context.getSelf(), DeadlineReached.INSTANCE);
        meters.started(); // and stopped() once, in released(), which every way out of a constructed episode passes
        counted = true;
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(PolicyAnswered.class, this::onPolicyAnswered)
                .onMessage(ToolsDone.class, this::onToolsDone)
                .onMessage(TurnRecorded.class, this::onTurnRecorded)
                .onMessage(CallEnded.class, this::onCallEnded)
                .onMessage(PartnerReplied.class, this::onPartnerReplied)
                .onMessageEquals(DeadlineReached.INSTANCE, this::onDeadline)
                .onMessageEquals(RetryPolicy.INSTANCE, this::retryPolicy)
                .onMessage(Cancel.class, c -> finish(StopReason.CANCELLED, null, "cancelled: " + c.reason()))
                .onSignal(PostStop.class, stop -> released())
                .build();
    }

    /**
     * A crash or a stop still releases the episode's database or index, and its sandbox session;
     * a stop from outside (a worker giving the episode back) also frees its model slot and tools.
     */
    /** Nothing this episode waits for is wanted any more: its deadline, the policy, the journal, the tools. */
    private void stopWaiting() {
        deadline.cancel();
        if (pendingPolicy != null) pendingPolicy.cancel(true);
        if (pendingRecord != null) pendingRecord.cancel(true);
        if (pendingPartner != null) pendingPartner.cancel(true);
        for (CompletableFuture<ToolResult> f : pendingTools) f.cancel(true);
    }

    private Behavior<Command> released() {
        if (counted) {
            counted = false;
            meters.stopped();
        }
        stopWaiting();
        closeEnvironment();
        setup.executor.release(request.episodeId());
        return Behaviors.same();
    }

    private void append(Message m) {
        messages.add(m);
        contextTokens += setup.counter.count(m);
    }

    /** Sends the current context to the policy; compressed only when it no longer fits. */
    private Behavior<Command> askPolicy() {
        List<Message> context = messages;
        compressedContext = null;
        if (contextTokens > setup.contextBudget) {
            CompressedContext fitted = setup.compressor.fit(messages, contextTokens);
            if (fitted.tokens() > setup.contextBudget) {
                // Even system, task and the last turn cut to their bones do not fit: never send an over-budget context.
                return finish(StopReason.TOKEN_BUDGET, null, "context-budget " + spec.contextBudget()
                        + " tokens is below the smallest context this episode can be compressed to (" + fitted.tokens() + ")");
            }
            context = fitted.messages();
            if (fitted.compressed()) compressedContext = List.copyOf(context);
        }
        policyTurns++;
        int remaining = spec.tokenBudget() - budgetUsed;
        SamplingParams sampling = setup.sampling;
        SamplingParams turnSampling = remaining < sampling.maxTokens() ? sampling.withMaxTokens(remaining) : sampling;
        CompletionRequest req = new CompletionRequest(request.episodeId(), policyTurns, context,
                setup.format.nativeTools() ? setup.toolSpecs : List.of(), spec.toolChoice(), turnSampling);
        turnStartNanos = System.nanoTime();
        replaying = policyTurns <= history.size() ? history.get(policyTurns - 1) : null;
        // Resuming: the policy said this before the crash, after the same context.
        CompletableFuture<Completion> answer = replaying != null
                ? CompletableFuture.completedFuture(replaying.completion()) : ask(req);
        pendingPolicy = answer;
        // An answer that is already there (in-process policies) is handled now, without a message
        // round trip, up to a small depth: then a message hop unwinds the stack and lets a queued
        // deadline or cancel in.
        if (answer.isDone() && inlineDepth < MAX_INLINE_DEPTH) {
            inlineDepth++;
            try {
                return onPolicyAnswered(completed(answer, PolicyAnswered::new));
            } finally {
                inlineDepth--;
            }
        }
        getContext().pipeToSelf(answer, PolicyAnswered::new);
        return this;
    }

    private CompletableFuture<Completion> ask(CompletionRequest req) {
        try {
            CompletionStage<Completion> stage = policy.complete(req);
            return stage == null ? CompletableFuture.failedFuture(new IllegalStateException("the policy returned no answer stage"))
                    : Stages.direct(stage);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static <T, M> M completed(CompletableFuture<T> done, java.util.function.BiFunction<T, Throwable, M> adapt) {
        try {
            return adapt.apply(done.join(), null);
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            return adapt.apply(null, e);
        }
    }

    private Behavior<Command> onPolicyAnswered(PolicyAnswered answered) {
        pendingPolicy = null;
        if (answered.failure() != null) return onPolicyFailed(unwrap(answered.failure()));
        Completion c = answered.completion();
        if (c == null) return finish(StopReason.POLICY_ERROR, null, "policy returned no completion on turn " + policyTurns);
        policyRetries = 0;
        Timing timing = timingSince(turnStartNanos);
        promptTokens += c.promptTokens();
        int generated = c.completionTokens() > 0 ? c.completionTokens() : setup.counter.count(c.text());
        completionTokens += generated;
        budgetUsed += generated;
        if (replaying == null) meters.turn(generated); // a resumed episode's recorded turns were counted when they ran

        ParsedCompletion parsed = setup.format.parse(c, setup.toolSpecs);
        List<ToolCall> calls = parsed.toolCalls();
        String finishAnswer = finishAnswer(calls);
        if (finishAnswer == null && !calls.isEmpty() && environment != null && environment.callsAreTheAnswer()) {
            finishAnswer = callsAsAnswer(calls);
        }
        Turn turn = Turn.assistant(turns.size(), c, calls, parsed.errors(), compressedContext, timing);
        if (c.promptIds().length > 0) {
            turn = turn.withPrompt(PromptIds.store(c.promptIds(), lastPrompt, lastCompletion));
            lastPrompt = c.promptIds();
            lastCompletion = c.tokenIds();
        } else {
            lastPrompt = null;
        }
        turns.add(turn);
        append(setup.format.assistantMessage(c, parsed));
        reportProgress(calls, finishAnswer, parsed);
        boolean recordFirst = recordStep(c, calls, finishAnswer == null && !calls.isEmpty());

        if (finishAnswer != null) return finish(StopReason.FINAL_ANSWER, finishAnswer, null);
        if (!calls.isEmpty()) {
            if (parsed.hasErrors()) formatErrors++;
            tellEnvironment(ToolCallFormats.spoken(c, parsed), calls);
            return recordFirst ? recordThenRun(c, calls) : runTools(calls);
        }
        if (parsed.hasFinalAnswer() && !parsed.hasErrors()) {
            if (partner != null) return talk(parsed.finalAnswer()); // a message to the user, who answers it
            return finish(StopReason.FINAL_ANSWER, parsed.finalAnswer(), null);
        }
        formatErrors++;
        List<String> errors = parsed.errors().isEmpty() ? List.of("the completion had neither a tool call nor a final answer") : parsed.errors();
        Message feedback = setup.format.formatFeedback(errors);
        observe(feedback.role(), feedback.content(), List.of(feedback), List.of(), timingSince(System.nanoTime()));
        return nextTurn();
    }

    /**
     * A policy call failed: one its infrastructure may answer later is asked again after a backoff, while
     * retries and the deadline allow; otherwise the episode ends, as an infrastructure failure when it was one.
     */
    private Behavior<Command> onPolicyFailed(Throwable cause) {
        String why = "policy failed on turn " + policyTurns + ": " + describe(cause);
        if (!PolicyRetry.infrastructure(cause)) return finish(StopReason.POLICY_ERROR, null, why);
        if (policyRetries < retry.attempts()) {
            Duration wait = retry.delay(policyRetries, java.util.concurrent.ThreadLocalRandom.current().nextDouble());
            if (System.nanoTime() + wait.toNanos() < deadlineAtNanos) {
                policyRetries++;
                policyFailing = why;
                getContext().getLog().debug("episode {}: {}; asking again in {} (retry {} of {})", request.episodeId(), why, wait,
                        policyRetries, retry.attempts());
                getContext().scheduleOnce(wait, getContext().getSelf(), RetryPolicy.INSTANCE);
                return this;
            }
        }
        String tries = policyRetries == 0 ? "" : " (after " + policyRetries + " retries)";
        return finish(StopReason.POLICY_ERROR, null, why + tries, InfraFailure.POLICY_UNAVAILABLE);
    }

    private Behavior<Command> retryPolicy() {
        if (policyFailing == null) return this;
        policyFailing = null;
        policyTurns--; // the same turn, asked again
        return askPolicy();
    }

    /** The deadline passed; while a failing policy's retry waited, that failure is why, not the policy's slowness. */
    private Behavior<Command> onDeadline() {
        if (policyFailing == null) return finish(StopReason.DEADLINE, null, null);
        return finish(StopReason.POLICY_ERROR, null, policyFailing + " (the deadline passed before it could be asked again)",
                InfraFailure.POLICY_UNAVAILABLE);
    }

    /** Why the task's own rules end the episode now, or null; an environment that fails to say lets it go on. */
    private String taskLimit() {
        if (environment == null) return null;
        try {
            return environment.limitReached();
        } catch (RuntimeException e) {
            getContext().getLog().warn("episode {}: its environment failed to say whether a limit was reached", request.episodeId(), e);
            return null;
        }
    }

    /** The task's environment hears of the agent's calls before they run; its failure to listen does not stop the episode. */
    private void tellEnvironment(String text, List<ToolCall> calls) {
        if (environment == null) return;
        try {
            environment.agentCalls(text, calls);
        } catch (RuntimeException e) {
            getContext().getLog().warn("episode {}: its environment failed to take the turn's calls", request.episodeId(), e);
        }
    }

    /** The calls as the answer: {@code [{"name": {arguments}}, ...]}, the form function-calling benchmarks decode calls into. */
    private static String callsAsAnswer(List<ToolCall> calls) {
        com.fasterxml.jackson.databind.node.ArrayNode out = dev.agentswarm.core.json.Json.MAPPER.createArrayNode();
        for (ToolCall call : calls) out.addObject().set(call.name(), call.arguments());
        return dev.agentswarm.core.json.Json.write(out);
    }

    /** The agent's message goes to its partner; the reply comes back as a message to self. */
    private Behavior<Command> talk(String agentMessage) {
        turnStartNanos = System.nanoTime();
        CompletableFuture<ConversationPartner.Reply> reply;
        try {
            reply = Stages.direct(partner.reply(agentMessage));
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        pendingPartner = reply;
        getContext().pipeToSelf(reply, PartnerReplied::new);
        return this;
    }

    /** The partner's words are the next observation; a reply that closes the conversation ends the episode. */
    private Behavior<Command> onPartnerReplied(PartnerReplied r) {
        pendingPartner = null;
        if (r.failure() != null) {
            return finish(StopReason.POLICY_ERROR, null, "the simulated user failed: " + describe(unwrap(r.failure())),
                    InfraFailure.SIMULATED_USER_FAILED);
        }
        String text = r.reply().text() == null ? "" : r.reply().text();
        Message said = Message.user(text);
        observe(said.role(), text, List.of(said), List.of(), timingSince(turnStartNanos));
        if (r.reply().ends()) return finish(StopReason.USER_STOP, lastAgentMessage(), null);
        return nextTurn();
    }

    /** The agent's last words to its partner: the answer of a conversation the partner closed. */
    private String lastAgentMessage() {
        for (int i = turns.size() - 1; i >= 0; i--) {
            Turn t = turns.get(i);
            if (t.isAssistant() && t.toolCalls().isEmpty()) return t.text();
        }
        return partner.greeting();
    }

    /**
     * A {@code finish} call ends the episode with its answer (when the tool is offered and the answer
     * is a string). Other calls of the same turn are not run: the model said it was done.
     */
    private String finishAnswer(List<ToolCall> calls) {
        if (!setup.finishOffered) return null;
        for (ToolCall call : calls) {
            String answer = FinishTool.answerOf(call);
            if (answer != null) return answer;
        }
        return null;
    }

    /**
     * A turn that calls a tool that must not run twice waits until the swarm's journal holds it: after a
     * crash the journal then shows its calls may have run, so the resumed episode does not run them again.
     */
    private Behavior<Command> recordThenRun(Completion c, List<ToolCall> calls) {
        int turn = policyTurns;
        long leftMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineAtNanos - System.nanoTime()));
        CompletableFuture<SwarmProtocol.Recorded> recorded = Stages.direct(AskPattern.ask(request.swarm(),
                replyTo -> new SwarmProtocol.RecordBeforeCalls(request.episodeId(), turn, new EpisodeHistory.Step(c, null), replyTo),
                Duration.ofMillis(leftMillis), getContext().getSystem().scheduler()));
        awaitingRecord = calls;
        pendingRecord = recorded;
        getContext().pipeToSelf(recorded, (ok, failure) -> new TurnRecorded(turn, failure));
        return this;
    }

    private Behavior<Command> onTurnRecorded(TurnRecorded r) {
        if (awaitingRecord == null || r.turn() != policyTurns) return this;
        List<ToolCall> calls = awaitingRecord;
        awaitingRecord = null;
        pendingRecord = null;
        notRecorded = r.failure() == null ? null : describe(unwrap(r.failure()));
        return runTools(calls);
    }

    /** Whether the swarm must hear of {@code call} before it runs and as soon as it ends: a call that must not run twice. */
    private boolean guarded(ToolCall call) {
        return request.swarm() != null && !SwarmProtocol.SPAWN_TOOL.equals(call.name()) && !setup.executor.idempotent(call);
    }

    private Behavior<Command> runTools(List<ToolCall> calls) {
        turnStartNanos = System.nanoTime();
        resultsTold = 0;
        ActorRef<Command> self = getContext().getSelf();
        int turn = policyTurns;
        List<CompletableFuture<ToolResult>> futures = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            ToolCall call = calls.get(i);
            ToolResult recorded = replaying == null ? null : replaying.result(call.id());
            if (recorded != null) { // done before the crash: never run twice
                futures.add(CompletableFuture.completedFuture(recorded));
                continue;
            }
            if (request.swarm() != null && SwarmProtocol.SPAWN_TOOL.equals(call.name())) {
                futures.add(askSwarm(call));
                continue;
            }
            if (replaying != null && !setup.executor.idempotent(call)) {
                // In flight at the crash, maybe done, maybe not: the model is told, and decides whether to check or retry.
                futures.add(CompletableFuture.completedFuture(ToolExecutor.interrupted(call)));
                continue;
            }
            if (notRecorded != null && guarded(call)) {
                futures.add(CompletableFuture.completedFuture(new ToolResult(call.id(), call.name(), "tool '" + call.name()
                        + "' was not run: the swarm could not journal the turn before it (" + notRecorded + ")", ToolStatus.ERROR,
                        false, 0)));
                continue;
            }
            ToolContext ctx = new ToolContext(request.episodeId(), policyTurns, i, call.id(), spec.toolTimeoutMillis());
            CompletableFuture<ToolResult> result = setup.executor.execute(call, ctx).toCompletableFuture();
            if (stepOpen != null && guarded(call)) result.whenComplete((r, e) -> self.tell(new CallEnded(turn)));
            futures.add(result);
        }
        notRecorded = null;
        pendingTools = futures;
        CompletionStage<List<ToolResult>> all = futures.size() == 1
                ? futures.get(0).thenApply(List::of)
                : CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                        .thenApply(v -> futures.stream().map(CompletableFuture::join).toList());
        java.util.function.BiFunction<List<ToolResult>, Throwable, ToolsDone> adapt =
                (results, failure) -> new ToolsDone(results != null ? results : failedResults(calls, failure));
        // In-process tools (calculator, finish) are usually done already: go on without a message round trip.
        if (all instanceof CompletableFuture<List<ToolResult>> done && done.isDone() && inlineDepth < MAX_INLINE_DEPTH) {
            inlineDepth++;
            try {
                return onToolsDone(completed(done, adapt));
            } finally {
                inlineDepth--;
            }
        }
        getContext().pipeToSelf(all, adapt::apply);
        return this;
    }

    /**
     * A {@code spawn_subagents} call goes to the swarm running this episode, which may take as long as
     * the episode has left: its sub-agents run meanwhile.
     */
    private CompletableFuture<ToolResult> askSwarm(ToolCall call) {
        long started = System.nanoTime();
        long leftMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineAtNanos - started));
        int turn = policyTurns;
        CompletableFuture<SwarmProtocol.SpawnOutcome> outcome = Stages.direct(AskPattern.ask(request.swarm(),
                replyTo -> new SwarmProtocol.SpawnSubAgents(request.episodeId(), turn, call.id(), call.arguments(), replyTo),
                Duration.ofMillis(leftMillis), getContext().getSystem().scheduler()));
        return outcome.handle((o, failure) -> o != null
                ? new ToolResult(call.id(), call.name(), o.observation(), o.ok() ? ToolStatus.OK : ToolStatus.ERROR, false,
                        System.nanoTime() - started)
                : new ToolResult(call.id(), call.name(), "spawn_subagents failed: " + describe(unwrap(failure)), ToolStatus.ERROR,
                        false, System.nanoTime() - started));
    }

    /** Inside a swarm, every policy turn is reported: live views show it, and budgets count it while the episode runs. */
    private void reportProgress(List<ToolCall> calls, String finishAnswer, ParsedCompletion parsed) {
        if (request.swarm() == null) return;
        String action;
        if (finishAnswer != null) action = "answer: " + finishAnswer;
        else if (!calls.isEmpty()) action = ToolCallSummary.of(calls, 160);
        else if (parsed.hasFinalAnswer() && !parsed.hasErrors()) action = "answer: " + parsed.finalAnswer();
        else action = "format error";
        if (action.length() > 160) action = action.substring(0, 159) + "…";
        request.swarm().tell(new SwarmProtocol.EpisodeProgress(request.episodeId(), policyTurns, action, completionTokens));
    }

    /**
     * Tells the swarm running this episode what the policy said this turn, so a durable swarm can
     * resume the episode after it: with its results once they are in ({@link #onToolsDone}), or at once
     * when there is nothing to run. A recorded turn being replayed is not told again, unless its calls
     * were in flight at the crash. Returns whether the turn's calls must wait until the swarm's journal
     * holds its completion.
     */
    private boolean recordStep(Completion c, List<ToolCall> calls, boolean toolsToRun) {
        stepOpen = null;
        if (request.swarm() == null) return false;
        // A call that must not run twice waits for the completion to be journaled (recordThenRun), and each
        // of its results is told as it comes. Otherwise the completion alone is worth a journal event only
        // before a call that may run long (a round of sub-agents): after a crash there, the call is asked
        // again, not the policy. Other turns are recorded once, when their results are in; one cut short
        // by a crash is asked again whole (its calls are idempotent).
        boolean recordFirst = replaying == null && toolsToRun && calls.stream().anyMatch(this::guarded);
        boolean longCall = calls.stream().anyMatch(call -> SwarmProtocol.SPAWN_TOOL.equals(call.name()));
        if (replaying == null && !recordFirst && (!toolsToRun || longCall)) {
            request.swarm().tell(new SwarmProtocol.StepRecorded(request.episodeId(), policyTurns,
                    new EpisodeHistory.Step(c, toolsToRun ? null : List.of())));
        }
        if (toolsToRun && (replaying == null || !recordsEvery(replaying, calls))) stepOpen = c;
        return recordFirst;
    }

    private static boolean recordsEvery(EpisodeHistory.Step step, List<ToolCall> calls) {
        for (ToolCall call : calls) if (step.result(call.id()) == null) return false;
        return true;
    }

    /** The results of the open step's calls that have ended, for the swarm to journal; none told twice. */
    private Behavior<Command> onCallEnded(CallEnded ended) {
        if (stepOpen == null || ended.turn() != policyTurns || pendingTools.isEmpty()) return this;
        List<ToolResult> done = new ArrayList<>();
        for (CompletableFuture<ToolResult> f : pendingTools) {
            if (f.isDone() && !f.isCompletedExceptionally()) done.add(f.join());
        }
        // All of them: the turn's record with every result follows at once (onToolsDone).
        if (done.size() <= resultsTold || done.size() == pendingTools.size()) return this;
        resultsTold = done.size();
        request.swarm().tell(new SwarmProtocol.StepRecorded(request.episodeId(), policyTurns, new EpisodeHistory.Step(stepOpen, done)));
        return this;
    }

    private Behavior<Command> onToolsDone(ToolsDone done) {
        pendingTools = List.of();
        List<ToolResult> results = done.results();
        if (stepOpen != null) {
            request.swarm().tell(new SwarmProtocol.StepRecorded(request.episodeId(), policyTurns, new EpisodeHistory.Step(stepOpen, results)));
            stepOpen = null;
        }
        toolCalls += results.size();
        ToolResult down = null;
        for (ToolResult r : results) {
            if (r.ok()) toolSuccesses++;
            if (down == null && InfraFailure.ofTool(r.status()) != null) down = r;
        }
        List<Message> obs = setup.format.observations(results);
        String text = obs.size() == 1 ? obs.get(0).content() : String.join("\n", obs.stream().map(Message::content).toList());
        observe(obs.get(0).role(), text, obs, results, timingSince(turnStartNanos));
        if (down != null) { // the turn is kept, to show what happened; the model is not asked to work around a tool that is down
            return finish(StopReason.TOOL_UNAVAILABLE, null, "tool '" + down.name() + "': " + down.content(), InfraFailure.ofTool(down.status()));
        }
        return nextTurn();
    }

    private void observe(Role role, String text, List<Message> obs, List<ToolResult> results, Timing timing) {
        turns.add(Turn.observation(turns.size(), role, text, results, timing));
        for (Message m : obs) append(m);
        budgetUsed += setup.counter.count(text);
    }

    private Behavior<Command> nextTurn() {
        String limit = taskLimit();
        if (limit != null) return finish(StopReason.TASK_LIMIT, null, limit);
        if (System.nanoTime() >= deadlineAtNanos) return finish(StopReason.DEADLINE, null, null);
        if (policyTurns >= spec.maxTurns()) return finish(StopReason.MAX_TURNS, null, null);
        if (budgetUsed >= spec.tokenBudget()) return finish(StopReason.TOKEN_BUDGET, null, null);
        return askPolicy();
    }

    private Behavior<Command> finish(StopReason reason, String answer, String error) {
        return finish(reason, answer, error, null);
    }

    /** Ends the episode; one that failed for its infrastructure ({@code infra} not null) is not scored: there is nothing to judge. */
    private Behavior<Command> finish(StopReason reason, String answer, String error, InfraFailure infra) {
        stopWaiting();
        policyFailing = null;
        meters.finished(reason);
        EpisodeStats stats = new EpisodeStats(policyTurns, toolCalls, toolSuccesses, formatErrors, promptTokens,
                completionTokens, System.nanoTime() - startNanos);
        Trajectory done = new Trajectory(request.episodeId(), request.groupId(), request.task().id(), prompt, turns, answer,
                reason, error, stats, null, infra);
        if (environment == null || request.task().isPart() || infra != null) {
            closeEnvironment(); // a part of a task (a swarm's sub-agent) used the environment's tools; its task's reward judges the whole
            AnswerRelay.answer(getContext().getSystem(), replyTo, done, getContext().getLog());
            return Behaviors.stopped();
        }
        // Scoring may wait (hidden tests in a sandbox): nothing else arrives for the episode meanwhile.
        CompletionStage<RewardBreakdown> reward;
        try {
            reward = environment.scoreAsync(done);
        } catch (RuntimeException e) {
            reward = CompletableFuture.failedFuture(e);
        }
        // Bounded like a tool call: a scorer that never answers fails the reward, not the episode's slot.
        CompletableFuture<RewardBreakdown> bounded = reward.toCompletableFuture().copy()
                .orTimeout(spec.toolTimeoutMillis(), TimeUnit.MILLISECONDS);
        getContext().pipeToSelf(bounded, (r, failure) -> new Scored(done, r, failure));
        return Behaviors.receive(Command.class)
                .onMessage(Scored.class, this::onScored)
                .onSignal(PostStop.class, stop -> released())
                .build();
    }

    /**
     * Replies with the trajectory and its suite's reward; a failing scorer is reported in the trajectory, never lost,
     * as an infrastructure failure without a reward (never a reward of 0 the policy did not earn).
     */
    private Behavior<Command> onScored(Scored s) {
        Trajectory t = s.trajectory();
        if (s.failure() == null) {
            t = t.withReward(s.reward());
        } else {
            Throwable e = unwrap(s.failure());
            if (e instanceof java.util.concurrent.TimeoutException) {
                e = new java.util.concurrent.TimeoutException("scoring did not finish within tool-timeout (" + spec.toolTimeoutMillis() + " ms)");
            }
            getContext().getLog().warn("episode {}: scoring failed", request.episodeId(), e);
            t = t.failedBy(InfraFailure.SCORER_FAILED, "reward failed: " + describe(e));
        }
        closeEnvironment();
        AnswerRelay.answer(getContext().getSystem(), replyTo, t, getContext().getLog());
        return Behaviors.stopped();
    }

    private void closeEnvironment() {
        if (environment == null) return;
        try {
            environment.close();
        } catch (RuntimeException e) {
            getContext().getLog().warn("episode {}: closing its environment failed", request.episodeId(), e);
        }
        environment = null;
    }

    private Timing timingSince(long since) {
        long now = System.nanoTime();
        return new Timing(since - startNanos, now - since);
    }

    private static List<ToolResult> failedResults(List<ToolCall> calls, Throwable failure) {
        String why = describe(unwrap(failure));
        return calls.stream().map(c -> new ToolResult(c.id(), c.name(), "tool call failed: " + why,
                ToolStatus.ERROR, false, 0)).toList();
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) t = t.getCause();
        return t;
    }

    private static String describe(Throwable t) {
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }
}
