package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;

/**
 * What every layer's attention needs for one forward pass besides its input: the rotary tables for
 * the positions in the pass, the additive mask (0 = may attend, -1e9 = may not; null when nothing is
 * masked) and, when decoding with a cache, where this pass's keys and values go.
 *
 * <ul>
 *   <li>full: no cache; queries attend to the pass's own keys (training, scoring).
 *   <li>prefill: new sequences from position 0 written into slots [firstSlot, firstSlot + rows); they
 *       attend to their own keys.
 *   <li>step: one token per running row 0 .. rows-1 at its own position, written into the cache; the
 *       rows attend to cached positions 0 .. visible-1.
 * </ul>
 */
record AttentionInputs(NDArray[] rotary, NDArray mask, KvCache cache, int firstSlot, KvCache.Step step) {

    static AttentionInputs full(NDArray[] rotary, NDArray mask) {
        return new AttentionInputs(rotary, mask, null, 0, null);
    }

    static AttentionInputs prefill(NDArray[] rotary, NDArray mask, KvCache cache, int firstSlot) {
        return new AttentionInputs(rotary, mask, cache, firstSlot, null);
    }

    static AttentionInputs step(NDArray[] rotary, NDArray mask, KvCache cache, KvCache.Step step) {
        return new AttentionInputs(rotary, mask, cache, 0, step);
    }

    boolean isStep() {
        return step != null;
    }
}
