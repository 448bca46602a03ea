package dev.agentswarm.core.environment;

import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.Tool;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A task environment that passes everything to another: a wrapper overrides what it adds (a registry
 * that forgets the episode on {@link #close}) and keeps every other part of the environment, including
 * what {@link TaskEnvironment} gains later. Every method of the interface is forwarded here.
 */
public abstract class ForwardingTaskEnvironment implements TaskEnvironment {

    protected final TaskEnvironment delegate;

    protected ForwardingTaskEnvironment(TaskEnvironment delegate) {
        this.delegate = delegate;
    }

    @Override
    public List<Tool> tools() {
        return delegate.tools();
    }

    @Override
    public String systemPrompt() {
        return delegate.systemPrompt();
    }

    @Override
    public boolean callsAreTheAnswer() {
        return delegate.callsAreTheAnswer();
    }

    @Override
    public ConversationPartner partner() {
        return delegate.partner();
    }

    @Override
    public String limitReached() {
        return delegate.limitReached();
    }

    @Override
    public void agentCalls(String text, java.util.List<dev.agentswarm.core.protocol.ToolCall> calls) {
        delegate.agentCalls(text, calls);
    }

    @Override
    public RewardBreakdown score(Trajectory trajectory) {
        return delegate.score(trajectory);
    }

    @Override
    public CompletionStage<RewardBreakdown> scoreAsync(Trajectory trajectory) {
        return delegate.scoreAsync(trajectory); // a suite that grades in a sandbox must not block the episode's thread
    }

    @Override
    public void close() {
        delegate.close();
    }
}
