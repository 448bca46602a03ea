package dev.agentswarm.core;

/**
 * Marker for every message that may cross nodes: bound to Pekko's {@code jackson-cbor}
 * serializer in core's {@code reference.conf}, so tests with {@code serialize-messages = on}
 * exercise exactly what a cluster sends.
 */
public interface CborSerializable {}
