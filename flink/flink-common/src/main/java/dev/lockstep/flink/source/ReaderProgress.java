package dev.lockstep.flink.source;

import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Sent by a streaming reader when it checkpoints: the lowest snapshot id among the splits it has
 * not finished emitting at checkpoint {@code checkpointId} ({@code Long.MAX_VALUE}: none). The
 * enumerator records a consumer's position from it once the checkpoint completes.
 */
record ReaderProgress(long checkpointId, long firstUnfinishedSnapshot) implements SourceEvent {}
