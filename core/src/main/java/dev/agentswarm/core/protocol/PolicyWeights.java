package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;

/**
 * New policy weights, published by the learner on the {@link #TOPIC} topic after an update: the
 * version they carry and the safetensors bytes (the version is also in their metadata). Every
 * policy server swaps them in between decode steps; an older version than the one served is ignored.
 */
public record PolicyWeights(long version, byte[] safetensors) implements CborSerializable {

    /** The pub-sub topic the weights travel on. */
    public static final String TOPIC = "policy-weights";

    public PolicyWeights {
        if (version < 1) throw new IllegalArgumentException("published weights have a version >= 1, got " + version);
        if (safetensors == null || safetensors.length == 0) throw new IllegalArgumentException("published weights carry their bytes");
    }
}
