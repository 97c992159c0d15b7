package dev.lockstep.flink.sink;

import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.TableShape;
import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;

/**
 * The Lockstep sink on Flink's Sink V2 API, the same on every Flink line; each line's {@code
 * LockstepSink} adds only the {@code createWriter} signature of its Flink version.
 *
 * <pre>
 *   input --partition by (partition, bucket)--> writers (sink parallelism)
 *         --> aggregator (parallelism 1, one committable per checkpoint)
 *         --> committer (one snapshot per checkpoint, identifier = checkpoint id)
 * </pre>
 */
public abstract class LockstepSinkBase
    implements Sink<RowData>,
        SupportsWriterState<RowData, LockstepWriterState>,
        SupportsCommitter<LockstepCommittable>,
        SupportsPreWriteTopology<RowData>,
        SupportsPreCommitTopology<LockstepCommittable, LockstepCommittable> {

  private static final long serialVersionUID = 1L;

  protected final TableLoader loader;
  protected final TableShape shape;
  protected final String commitUser;
  protected final boolean userFixed;
  protected final OverwriteMode overwrite;

  /**
   * @param commitUser the configured {@code commit.user}, or null for a random one fixed now (in
   *     the job graph), which a restored writer state replaces
   * @param overwrite null for appends
   */
  protected LockstepSinkBase(
      TableLoader loader, TableShape shape, String commitUser, OverwriteMode overwrite) {
    this.loader = loader;
    this.shape = shape;
    this.userFixed = commitUser != null;
    this.commitUser = commitUser != null ? commitUser : "flink-" + java.util.UUID.randomUUID();
    this.overwrite =
        overwrite == null || overwrite.hasBase()
            ? overwrite
            : overwrite.withBase(latestSnapshotId(loader));
  }

  /**
   * An overwrite's base is the table's latest snapshot when the job is built (here, on the client),
   * not when its writers start: a batch job's writers start only after the rows before the bucket
   * shuffle are produced, and data another job committed meanwhile must make the overwrite fail
   * rather than be replaced unseen (as Spark's writes do, from their planning).
   */
  private static long latestSnapshotId(TableLoader loader) {
    try (TableLoader.Opened opened = loader.open()) {
      return opened.table().snapshotManager().latestId().orElse(0);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(
          "Cannot read the latest snapshot of "
              + loader
              + " for the base of an overwrite: "
              + e.getMessage(),
          e);
    }
  }

  public String commitUser() {
    return commitUser;
  }

  /** A writer; {@code restored} are the states of a restored job (possibly empty). */
  protected StatefulSinkWriter<RowData, LockstepWriterState> openWriter(
      Collection<LockstepWriterState> restored) throws IOException {
    String user = userFixed ? commitUser : LockstepSinkWriter.restoredUser(restored, commitUser);
    return new LockstepSinkWriter(loader, shape, user);
  }

  @Override
  public StatefulSinkWriter<RowData, LockstepWriterState> restoreWriter(
      WriterInitContext context, Collection<LockstepWriterState> recoveredState)
      throws IOException {
    return openWriter(recoveredState);
  }

  @Override
  public SimpleVersionedSerializer<LockstepWriterState> getWriterStateSerializer() {
    return new JavaSerializer<>(LockstepWriterState.class);
  }

  @Override
  public Committer<LockstepCommittable> createCommitter(CommitterInitContext context) {
    return new LockstepCommitter(loader, overwrite);
  }

  @Override
  public SimpleVersionedSerializer<LockstepCommittable> getCommittableSerializer() {
    return new JavaSerializer<>(LockstepCommittable.class);
  }

  @Override
  public SimpleVersionedSerializer<LockstepCommittable> getWriteResultSerializer() {
    return new JavaSerializer<>(LockstepCommittable.class);
  }

  @Override
  public DataStream<RowData> addPreWriteTopology(DataStream<RowData> input) {
    return input.partitionCustom(
        new BucketKeySelector.ModuloPartitioner(), new BucketKeySelector(shape));
  }

  @Override
  public DataStream<CommittableMessage<LockstepCommittable>> addPreCommitTopology(
      DataStream<CommittableMessage<LockstepCommittable>> committables) {
    String name = "Lockstep commit aggregator: " + loader.identifier();
    // global(): every committable goes to the single aggregator, and its one committable per
    // checkpoint to committer subtask 0, so only one subtask ever commits.
    return committables
        .global()
        .transform(
            name,
            CommittableMessageTypeInfo.of(this::getCommittableSerializer),
            new CommitAggregator(commitUser))
        .setParallelism(1)
        .setMaxParallelism(1)
        .global();
  }
}
