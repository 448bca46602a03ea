package dev.agentswarm.workers;

import dev.agentswarm.core.context.CompressedContext;
import dev.agentswarm.core.environment.ConversationPartner;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.format.ParsedCompletion;
import dev.agentswarm.core.format.ToolCallFormats;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.SwarmProtocol;
import dev.agentswarm.core.protocol.Timing;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import java.time.Duration;
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
    private final ActorRef<Trajectory> replyTo;
    private final EpisodeMeters meters;
    /** Counted in {@code agentswarm.episodes.running} until released. */
    private boolean counted;
    /** The simulated user this episode converses with, or null. */
    private final PartnerConversation partner;
    /** The task's suite environment (its tools' state and its reward); closed when the episode ends. */
    private final EpisodeEnvironment environment;
    private final long startNanos = System.nanoTime();

    private final EpisodeTranscript transcript;
    private final SwarmLink swarm;
    private final ToolCallRound toolCalls;
    private long turnStartNanos;
    private List<Message> compressedContext;
    private List<CompletableFuture<ToolResult>> pendingTools = List.of();
    private final Cancellable deadline;
    private final long deadlineAtNanos;
    private CompletableFuture<Completion> pendingPolicy;
    private int inlineDepth;
    private final CompletionSource completions;
    /** The recorded step of the turn in progress, or null when the turn is live. */
    private EpisodeHistory.Step replaying;
    /** The calls of the turn waiting for the swarm's journal to hold it, and that wait. */
    private List<ToolCall> awaitingRecord;
    private CompletableFuture<SwarmProtocol.Recorded> pendingRecord;
    /** Why the swarm could not journal this turn before its calls, which then do not start; null when it did. */
    private String notRecorded;

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
        this.environment = new EpisodeEnvironment(environment, request.episodeId(), context.getLog());
        this.request = request;
        this.spec = request.spec();
        this.setup = setup;
        this.replyTo = replyTo;
        this.completions = new CompletionSource(policy, setup, spec, request.episodeId(), request.history().steps(), retry);
        ConversationPartner user = environment == null ? null : environment.partner();
        this.partner = user == null ? null : new PartnerConversation(user);
        // With a partner the task's prompt is the partner's brief, not the agent's: the agent starts with its greeting.
        Message opening = user == null ? Message.user(request.task().prompt()) : Message.assistant(user.greeting());
        this.transcript = new EpisodeTranscript(setup.systemMessage, setup.systemTokens, opening, setup.counter);
        this.swarm = new SwarmLink(request.swarm(), request.episodeId(), setup.executor);
        // A plain scheduled message rather than a timer scheduler: no interceptor on every message.
        this.deadlineAtNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(spec.deadlineMillis());
        this.deadline = context.scheduleOnce(Duration.ofMillis(spec.deadlineMillis()), context.getSelf(), DeadlineReached.INSTANCE);
        this.toolCalls = new ToolCallRound(request.episodeId(), setup.executor, spec.toolTimeoutMillis(), swarm, deadlineAtNanos,
                context.getSystem().scheduler());
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

    /** Nothing this episode waits for is wanted any more: its deadline, the policy, the journal, the tools. */
    private void stopWaiting() {
        deadline.cancel();
        if (pendingPolicy != null) pendingPolicy.cancel(true);
        if (pendingRecord != null) pendingRecord.cancel(true);
        if (partner != null) partner.stopWaiting();
        for (CompletableFuture<ToolResult> f : pendingTools) f.cancel(true);
    }

    /**
     * A crash or a stop still releases the episode's database or index, and its sandbox session;
     * a stop from outside (a worker giving the episode back) also frees its model slot and tools.
     */
    private Behavior<Command> released() {
        if (counted) {
            counted = false;
            meters.stopped();
        }
        stopWaiting();
        environment.close();
        setup.executor.release(request.episodeId());
        return Behaviors.same();
    }

    /** Sends the current context to the policy; compressed only when it no longer fits. */
    private Behavior<Command> askPolicy() {
        List<Message> context = transcript.messages();
        compressedContext = null;
        if (transcript.contextTokens() > setup.contextBudget) {
            CompressedContext fitted = setup.compressor.fit(context, transcript.contextTokens());
            if (fitted.tokens() > setup.contextBudget) {
                // Even system, task and the last turn cut to their bones do not fit: never send an over-budget context.
                return finish(StopReason.TOKEN_BUDGET, null, "context-budget " + spec.contextBudget()
                        + " tokens is below the smallest context this episode can be compressed to (" + fitted.tokens() + ")");
            }
            context = fitted.messages();
            if (fitted.compressed()) compressedContext = List.copyOf(context);
        }
        int policyTurns = transcript.startTurn();
        CompletionRequest req = completions.request(policyTurns, context, transcript.budgetUsed());
        turnStartNanos = System.nanoTime();
        replaying = completions.recorded(policyTurns);
        CompletableFuture<Completion> answer = completions.answer(req, replaying); // resuming: the recorded answer
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
        if (c == null) return finish(StopReason.POLICY_ERROR, null, "policy returned no completion on turn " + transcript.policyTurns());
        completions.answered();
        Timing timing = timingSince(turnStartNanos);
        int generated = transcript.answered(c);
        if (replaying == null) meters.turn(generated); // a resumed episode's recorded turns were counted when they ran

        ParsedCompletion parsed = setup.format.parse(c, setup.toolSpecs);
        List<ToolCall> calls = parsed.toolCalls();
        String finishAnswer = setup.finishAnswer(calls);
        if (finishAnswer == null) finishAnswer = environment.answerOf(calls);
        transcript.assistant(c, calls, parsed.errors(), compressedContext, timing, setup.format.assistantMessage(c, parsed));
        swarm.progress(transcript.policyTurns(), calls, finishAnswer, parsed, transcript.completionTokens());
        boolean recordFirst = swarm.recordStep(transcript.policyTurns(), c, calls, finishAnswer == null && !calls.isEmpty(), replaying);

        if (finishAnswer != null) return finish(StopReason.FINAL_ANSWER, finishAnswer, null);
        if (!calls.isEmpty()) {
            if (parsed.hasErrors()) transcript.formatError();
            environment.agentCalls(ToolCallFormats.spoken(c, parsed), calls);
            return recordFirst ? recordThenRun(c, calls) : runTools(calls);
        }
        if (parsed.hasFinalAnswer() && !parsed.hasErrors()) {
            if (partner != null) return talk(parsed.finalAnswer()); // a message to the user, who answers it
            return finish(StopReason.FINAL_ANSWER, parsed.finalAnswer(), null);
        }
        transcript.formatError();
        List<String> errors = parsed.errors().isEmpty() ? List.of("the completion had neither a tool call nor a final answer") : parsed.errors();
        Message feedback = setup.format.formatFeedback(errors);
        transcript.observe(feedback.role(), feedback.content(), List.of(feedback), List.of(), timingSince(System.nanoTime()));
        return nextTurn();
    }

    /**
     * A policy call failed: one its infrastructure may answer later is asked again after a backoff, while
     * retries and the deadline allow; otherwise the episode ends, as an infrastructure failure when it was one.
     */
    private Behavior<Command> onPolicyFailed(Throwable cause) {
        String why = "policy failed on turn " + transcript.policyTurns() + ": " + describe(cause);
        if (!PolicyRetry.infrastructure(cause)) return finish(StopReason.POLICY_ERROR, null, why);
        Duration wait = completions.retryAfter(why, deadlineAtNanos);
        if (wait != null) {
            getContext().getLog().debug("episode {}: {}; asking again in {} (retry {} of {})", request.episodeId(), why, wait,
                    completions.retries(), completions.attempts());
            getContext().scheduleOnce(wait, getContext().getSelf(), RetryPolicy.INSTANCE);
            return this;
        }
        String tries = completions.retries() == 0 ? "" : " (after " + completions.retries() + " retries)";
        return finish(StopReason.POLICY_ERROR, null, why + tries, InfraFailure.POLICY_UNAVAILABLE);
    }

    private Behavior<Command> retryPolicy() {
        if (completions.failing() == null) return this;
        completions.retryEnded();
        transcript.askTurnAgain();
        return askPolicy();
    }

    /** The deadline passed; while a failing policy's retry waited, that failure is why, not the policy's slowness. */
    private Behavior<Command> onDeadline() {
        if (completions.failing() == null) return finish(StopReason.DEADLINE, null, null);
        return finish(StopReason.POLICY_ERROR, null, completions.failing() + " (the deadline passed before it could be asked again)",
                InfraFailure.POLICY_UNAVAILABLE);
    }

    /** The agent's message goes to its partner; the reply comes back as a message to self. */
    private Behavior<Command> talk(String agentMessage) {
        turnStartNanos = System.nanoTime();
        getContext().pipeToSelf(partner.say(agentMessage), PartnerReplied::new);
        return this;
    }

    /** The partner's words are the next observation; a reply that closes the conversation ends the episode. */
    private Behavior<Command> onPartnerReplied(PartnerReplied r) {
        partner.replied();
        if (r.failure() != null) {
            return finish(StopReason.POLICY_ERROR, null, "the simulated user failed: " + describe(unwrap(r.failure())),
                    InfraFailure.SIMULATED_USER_FAILED);
        }
        Message said = PartnerConversation.heard(r.reply());
        transcript.observe(said.role(), said.content(), List.of(said), List.of(), timingSince(turnStartNanos));
        if (r.reply().ends()) return finish(StopReason.USER_STOP, partner.answerOnClose(transcript), null);
        return nextTurn();
    }

    /**
     * A turn that calls a tool that must not run twice waits until the swarm's journal holds it: after a
     * crash the journal then shows its calls may have run, so the resumed episode does not run them again.
     */
    private Behavior<Command> recordThenRun(Completion c, List<ToolCall> calls) {
        int turn = transcript.policyTurns();
        long leftMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineAtNanos - System.nanoTime()));
        CompletableFuture<SwarmProtocol.Recorded> recorded = swarm.recordBeforeCalls(turn, c, Duration.ofMillis(leftMillis),
                getContext().getSystem().scheduler());
        awaitingRecord = calls;
        pendingRecord = recorded;
        getContext().pipeToSelf(recorded, (ok, failure) -> new TurnRecorded(turn, failure));
        return this;
    }

    private Behavior<Command> onTurnRecorded(TurnRecorded r) {
        if (awaitingRecord == null || r.turn() != transcript.policyTurns()) return this;
        List<ToolCall> calls = awaitingRecord;
        awaitingRecord = null;
        pendingRecord = null;
        notRecorded = r.failure() == null ? null : describe(unwrap(r.failure()));
        return runTools(calls);
    }

    private Behavior<Command> runTools(List<ToolCall> calls) {
        turnStartNanos = System.nanoTime();
        swarm.callsStarted();
        ActorRef<Command> self = getContext().getSelf();
        int turn = transcript.policyTurns();
        List<CompletableFuture<ToolResult>> futures = toolCalls.start(turn, calls, replaying, notRecorded,
                () -> self.tell(new CallEnded(turn)));
        notRecorded = null;
        pendingTools = futures;
        CompletionStage<List<ToolResult>> all = ToolCallRound.all(futures);
        java.util.function.BiFunction<List<ToolResult>, Throwable, ToolsDone> adapt =
                (results, failure) -> new ToolsDone(results != null ? results : ToolCallRound.failed(calls, failure));
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

    /** The results of the open step's calls that have ended, for the swarm to journal; none told twice. */
    private Behavior<Command> onCallEnded(CallEnded ended) {
        if (ended.turn() != transcript.policyTurns() || pendingTools.isEmpty()) return this;
        swarm.callEnded(ended.turn(), pendingTools);
        return this;
    }

    private Behavior<Command> onToolsDone(ToolsDone done) {
        pendingTools = List.of();
        List<ToolResult> results = done.results();
        swarm.turnDone(transcript.policyTurns(), results);
        transcript.toolResults(results, setup.format.observations(results), timingSince(turnStartNanos));
        ToolResult down = ToolCallRound.down(results);
        if (down != null) { // the turn is kept, to show what happened; the model is not asked to work around a tool that is down
            return finish(StopReason.TOOL_UNAVAILABLE, null, "tool '" + down.name() + "': " + down.content(), InfraFailure.ofTool(down.status()));
        }
        return nextTurn();
    }

    private Behavior<Command> nextTurn() {
        String limit = environment.limitReached();
        if (limit != null) return finish(StopReason.TASK_LIMIT, null, limit);
        if (System.nanoTime() >= deadlineAtNanos) return finish(StopReason.DEADLINE, null, null);
        if (transcript.policyTurns() >= spec.maxTurns()) return finish(StopReason.MAX_TURNS, null, null);
        if (transcript.budgetUsed() >= spec.tokenBudget()) return finish(StopReason.TOKEN_BUDGET, null, null);
        return askPolicy();
    }

    private Behavior<Command> finish(StopReason reason, String answer, String error) {
        return finish(reason, answer, error, null);
    }

    /** Ends the episode; one that failed for its infrastructure ({@code infra} not null) is not scored: there is nothing to judge. */
    private Behavior<Command> finish(StopReason reason, String answer, String error, InfraFailure infra) {
        stopWaiting();
        completions.retryEnded();
        meters.finished(reason);
        Trajectory done = transcript.trajectory(request, reason, answer, error, infra, System.nanoTime() - startNanos);
        if (!environment.scores() || request.task().isPart() || infra != null) {
            environment.close(); // a part of a task (a swarm's sub-agent) used the environment's tools; its task's reward judges the whole
            AnswerRelay.answer(getContext().getSystem(), replyTo, done, getContext().getLog());
            return Behaviors.stopped();
        }
        // Scoring may wait (hidden tests in a sandbox): nothing else arrives for the episode meanwhile.
        getContext().pipeToSelf(environment.score(done, spec.toolTimeoutMillis()), (r, failure) -> new Scored(done, r, failure));
        return Behaviors.receive(Command.class)
                .onMessage(Scored.class, this::onScored)
                .onSignal(PostStop.class, stop -> released())
                .build();
    }

    /** Replies with the trajectory and its suite's reward, or with the scorer's failure in its place. */
    private Behavior<Command> onScored(Scored s) {
        Trajectory t = environment.scored(s.trajectory(), s.reward(), s.failure(), spec.toolTimeoutMillis());
        environment.close();
        AnswerRelay.answer(getContext().getSystem(), replyTo, t, getContext().getLog());
        return Behaviors.stopped();
    }

    private Timing timingSince(long since) {
        long now = System.nanoTime();
        return new Timing(since - startNanos, now - since);
    }

    static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) t = t.getCause();
        return t;
    }

    static String describe(Throwable t) {
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }
}
