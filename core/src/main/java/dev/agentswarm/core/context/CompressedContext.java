package dev.agentswarm.core.context;

import dev.agentswarm.core.protocol.Message;
import java.util.List;

/**
 * What {@link ContextCompressor#fit} sends to the policy.
 *
 * @param messages              system, task, then history; the input list itself when nothing was changed
 * @param tokens                tokens of {@code messages}, counted message by message with the compressor's counter
 * @param compressed            false exactly when {@code messages} is the input, unchanged
 * @param shortenedObservations observations in {@code messages} whose content was cut (to a head plus marker, or
 *                              to nothing as a last resort)
 * @param foldedMessages        history messages replaced by the summary message (or dropped with it)
 */
public record CompressedContext(List<Message> messages, int tokens, boolean compressed, int shortenedObservations,
                                int foldedMessages) {}
