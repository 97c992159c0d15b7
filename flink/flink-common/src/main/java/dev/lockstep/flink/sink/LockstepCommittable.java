package dev.lockstep.flink.sink;

import dev.lockstep.engine.write.CommitMessage;
import java.io.Serializable;
import java.util.List;

/**
 * The commit messages of one checkpoint. A writer subtask emits one with {@code checkpointId = -1}
 * (Flink does not tell {@code prepareCommit} the checkpoint); the parallelism-1 aggregator merges
 * the writers' into one per checkpoint and stamps the checkpoint id, which becomes the commit
 * identifier. The commit user travels with it, so a committable restored from any checkpoint is
 * committed again under the user it was written with.
 */
public record LockstepCommittable(
    String commitUser, long checkpointId, List<CommitMessage> messages) implements Serializable {

  public LockstepCommittable {
    messages = List.copyOf(messages);
  }

  public boolean isEmpty() {
    return messages.stream().allMatch(CommitMessage::isEmpty);
  }
}
