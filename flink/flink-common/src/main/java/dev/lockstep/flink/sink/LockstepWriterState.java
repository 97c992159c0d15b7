package dev.lockstep.flink.sink;

import java.io.Serializable;

/**
 * A writer subtask's checkpointed state: the commit user it writes under, so that a job restored
 * from a checkpoint or savepoint keeps committing under the same user (and its identifiers keep
 * their exactly-once meaning) unless {@code commit.user} says otherwise. Data files are never in
 * writer state: at each checkpoint the writer flushes everything it buffered into the checkpoint's
 * committable, which Flink keeps in the committer's state until the commit succeeded.
 */
public record LockstepWriterState(String commitUser) implements Serializable {}
