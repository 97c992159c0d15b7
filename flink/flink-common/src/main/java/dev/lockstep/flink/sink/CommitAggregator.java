package dev.lockstep.flink.sink;

import dev.lockstep.engine.write.CommitMessage;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The sink's parallelism-1 pre-commit step: collects every writer subtask's committable of a
 * checkpoint and emits one committable stamped with the checkpoint id, so the committer makes one
 * snapshot per checkpoint.
 *
 * <ol>
 *   <li>Writers emit their committables right before the barrier of checkpoint N ({@code
 *       prepareSnapshotPreBarrier}); with aligned barriers they all arrive here before barrier N
 *       does.
 *   <li>On barrier N this operator emits one summary and one committable for N, even an empty one,
 *       and forgets them; nothing is pending between barriers, so it needs no state.
 *   <li>At the end of a bounded input it does the same for the final checkpoint (the next id after
 *       the last one it saw, or after the restored one), or, without checkpointing (batch), for
 *       {@code Long.MAX_VALUE}.
 * </ol>
 */
final class CommitAggregator extends AbstractStreamOperator<CommittableMessage<LockstepCommittable>>
    implements OneInputStreamOperator<
            CommittableMessage<LockstepCommittable>, CommittableMessage<LockstepCommittable>>,
        BoundedOneInput {

  private static final long serialVersionUID = 1L;

  private final String defaultUser;
  private final List<CommitMessage> pending = new ArrayList<>();
  private String commitUser;
  private boolean endOfInput;
  private long lastCheckpointId;

  CommitAggregator(String defaultUser) {
    this.defaultUser = defaultUser;
  }

  @Override
  public void processElement(StreamRecord<CommittableMessage<LockstepCommittable>> element) {
    if (element.getValue() instanceof CommittableWithLineage) {
      LockstepCommittable c =
          ((CommittableWithLineage<LockstepCommittable>) element.getValue()).getCommittable();
      if (commitUser != null && !commitUser.equals(c.commitUser())) {
        throw new IllegalStateException(
            "Writers of one sink use two commit users, '"
                + commitUser
                + "' and '"
                + c.commitUser()
                + "'; set 'commit.user' explicitly.");
      }
      commitUser = c.commitUser();
      pending.addAll(c.messages());
    }
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    lastCheckpointId = context.getRestoredCheckpointId().orElse(0);
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) {
    if (!endOfInput) {
      lastCheckpointId = checkpointId;
      emit(checkpointId);
    }
    // after the end of input (the final checkpoint) nothing is left to emit
  }

  @Override
  public void endInput() {
    endOfInput = true;
    // With checkpoints, the rest is committed by the final checkpoint, whose id is the next one
    // (Flink 1.20's committer commits it only under that id; 2.x commits everything at the end).
    // Without checkpoints (batch), the committer commits at the end of input.
    emit(
        getOperatorConfig().isCheckpointingEnabled()
            ? lastCheckpointId + 1
            : CommittableMessage.EOI);
  }

  @SuppressWarnings("deprecation")
  private void emit(long checkpointId) {
    String user = commitUser != null ? commitUser : defaultUser;
    output.collect(new StreamRecord<>(new CommittableSummary<>(0, 1, checkpointId, 1, 1, 0)));
    output.collect(
        new StreamRecord<>(
            new CommittableWithLineage<>(
                new LockstepCommittable(user, checkpointId, pending), checkpointId, 0)));
    pending.clear();
  }
}
