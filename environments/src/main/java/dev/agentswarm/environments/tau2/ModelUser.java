package dev.agentswarm.environments.tau2;

import dev.agentswarm.core.concurrent.Stages;
import dev.agentswarm.core.environment.ConversationPartner;
import dev.agentswarm.core.format.OpenAiToolCallsFormat;
import dev.agentswarm.core.format.ParsedCompletion;
import dev.agentswarm.core.format.ToolCallFormat;
import dev.agentswarm.core.format.ToolCallFormats;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A τ² customer played by a model, as τ²'s user simulator plays it: its system prompt is the
 * simulation guidelines and the task's scenario; it sees the conversation from its own side (the
 * agent's messages as the user's turns, its own as the assistant's; the agent's tool calls never),
 * and it ends the conversation with {@code ###STOP###}, {@code ###TRANSFER###} or
 * {@code ###OUT-OF-SCOPE###}. Where the domain gives the user tools (telecom's phone, mock's), they
 * are offered to its model; its calls run on the user's side of the environment, are recorded as the
 * user's, and their answers come back to it until it speaks to the agent (the agent never sees them).
 */
final class ModelUser implements ConversationPartner {

    /** How the user model's answers are read: native tool calls (or calls left in the text), as an OpenAI-compatible server gives them. */
    private static final ToolCallFormat CALLS = ToolCallFormats.byName(OpenAiToolCallsFormat.NAME);

    static final List<String> STOP_TOKENS = List.of("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###");

    /** τ²'s simulation guidelines, in our words. */
    static final String GUIDELINES = """
            You are playing the role of a customer contacting a customer service agent. Your goal is to simulate a realistic
            customer interaction while following the scenario you are given.

            - Send one message at a time, as a customer would, and keep it short and natural.
            - Follow the scenario strictly: do not make up information that is not in it. If the agent asks for something the
              scenario does not give, say you do not know or do not have it.
            - Share information progressively: give details only when the agent asks for them or when they are needed.
            - Do not repeat the scenario's instructions word for word; say them in your own words.
            - When the goal of the scenario is met, send a message containing ###STOP### to end the conversation.
            - If you are transferred to another agent, send ###TRANSFER###.
            - If the scenario does not say what to do in the situation you are in, send ###OUT-OF-SCOPE###.""";

    /** τ²'s guidelines for a user with tools, in our words. */
    static final String GUIDELINES_WITH_TOOLS = """
            You are playing the role of a customer contacting a customer service agent. Your goal is to simulate a realistic
            customer interaction while following the scenario you are given. You have tools to perform, on your own device,
            the actions the agent may ask for to diagnose and resolve your issue.

            - Send one message at a time, as a customer would, and keep it short and natural. In each turn either send a
              message to the agent or make a tool call, not both.
            - Follow the scenario strictly: do not make up information that is not in it. If the agent asks for something the
              scenario does not give, say you do not know or do not have it.
            - Never make up what a tool would show: what you tell the agent about your device must come from your tools'
              results. If a tool call fails, fix it and try again.
            - Only call a tool when the agent asks you to or when you need it to answer the agent. If the agent asks for
              several actions at once, say you can do one at a time and ask which first.
            - The agent does not see your tool calls or their results, only your messages.
            - Share information progressively: give details only when the agent asks for them or when they are needed.
            - Do not repeat the scenario's instructions word for word; say them in your own words.
            - When the goal of the scenario is met, send a message containing ###STOP### to end the conversation.
            - If you are transferred to another agent, send ###TRANSFER### (only once the agent has clearly transferred you).
            - If the scenario does not say what to do in the situation you are in, send ###OUT-OF-SCOPE###.""";

    private final Policy policy;
    private final String system;
    private final Tau2Episode episode;
    private final String episodeId;
    private final SamplingParams sampling;
    private final List<ToolSpec> tools;
    /** The conversation from the user's side: the agent's texts as user messages, its own replies and calls as assistant messages. */
    private final List<Message> history = new ArrayList<>();
    private int requests;

    ModelUser(Policy policy, String scenario, Tau2Episode episode, String episodeId, SamplingParams sampling) {
        this.policy = policy;
        this.episode = episode;
        this.tools = episode.userTools();
        this.system = ((tools.isEmpty() ? GUIDELINES : GUIDELINES_WITH_TOOLS) + "\n\n<scenario>\n" + scenario + "\n</scenario>").strip();
        this.episodeId = episodeId;
        this.sampling = sampling;
    }

    @Override
    public String greeting() {
        return ScriptedUser.GREETING;
    }

    @Override
    public CompletionStage<Reply> reply(String agentMessage) {
        synchronized (this) {
            episode.agentSaid(agentMessage);
            history.add(Message.user(agentMessage));
        }
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        ask(reply);
        return reply;
    }

    /** One request to the user's model: a call goes to its tools and then back to it; words go to the agent. */
    private void ask(CompletableFuture<Reply> reply) {
        CompletionRequest request;
        synchronized (this) {
            List<Message> messages = new ArrayList<>();
            messages.add(Message.system(system));
            messages.addAll(history);
            request = new CompletionRequest(episodeId + "/user", ++requests, messages, tools, tools.isEmpty() ? "none" : "auto", sampling);
        }
        CompletableFuture<Completion> answer = Stages.direct(policy.complete(request));
        reply.whenComplete((r, e) -> answer.cancel(true)); // the episode gave up the wait: so does the request
        answer.whenComplete((c, error) -> {
            if (reply.isDone()) return; // the episode ended meanwhile: nothing more happens on its phone
            try {
                if (error != null) {
                    reply.completeExceptionally(error);
                    return;
                }
                // Read as the agent's answers are read: arguments decoded from their JSON text, ids made unique, reasoning apart.
                ParsedCompletion parsed = CALLS.parse(c, tools);
                if (!tools.isEmpty() && !c.toolCalls().isEmpty()) {
                    if (parsed.toolCalls().isEmpty()) {
                        throw new IllegalStateException("the user model's tool calls could not be read: " + String.join("; ", parsed.errors()));
                    }
                    useTools(ToolCallFormats.spoken(c, parsed), parsed.toolCalls(), reply);
                } else {
                    reply.complete(said(ToolCallFormats.spoken(c, parsed)));
                }
            } catch (RuntimeException e) {
                reply.completeExceptionally(e);
            }
        });
    }

    private Reply said(String words) {
        String text = words == null ? "" : words.strip();
        if (text.isEmpty()) throw new IllegalStateException("the user model answered nothing");
        synchronized (this) {
            history.add(Message.assistant(text));
        }
        episode.userSaid(text);
        return new Reply(text, STOP_TOKENS.stream().anyMatch(text::contains));
    }

    /** The user's calls run on its side, as τ² runs them; past τ²'s step or error limits the conversation cannot go on. */
    private void useTools(String text, List<ToolCall> calls, CompletableFuture<Reply> reply) {
        List<String> answers = episode.userCalled(text, calls);
        synchronized (this) {
            history.add(Message.assistant(text, calls));
            for (int i = 0; i < calls.size(); i++) history.add(Message.tool(calls.get(i).id(), calls.get(i).name(), answers.get(i)));
        }
        if (episode.limitReached() != null) {
            // τ²'s run ends here: nothing more is said, and the episode stops at its next turn (TASK_LIMIT), earning nothing.
            reply.complete(new Reply("", false));
            return;
        }
        ask(reply);
    }
}
