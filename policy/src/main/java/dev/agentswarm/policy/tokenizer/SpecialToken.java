package dev.agentswarm.policy.tokenizer;

/** A token that is one id, matched verbatim in text and never split by byte-pair merges. */
public record SpecialToken(int id, String text) {}
