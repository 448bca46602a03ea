package dev.agentswarm.policy.model;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;

/**
 * Autograd bookkeeping is per thread in libtorch and on by default on every thread but the one that
 * loaded the engine: an inference pass on an actor's thread would record a graph for nothing. Call
 * {@link #noGradHere()} at the start of inference work on any thread (it is cheap); a learner's
 * GradientCollector turns recording on for its own scope and restores the previous mode.
 */
public final class InferenceThreads {

    private InferenceThreads() {}

    public static void noGradHere() {
        Engine.getEngine("PyTorch"); // loads the natives before the first JNI call
        JniUtils.setGradMode(false);
    }

    public static boolean recordsGradients() {
        Engine.getEngine("PyTorch");
        return JniUtils.isGradMode();
    }
}
