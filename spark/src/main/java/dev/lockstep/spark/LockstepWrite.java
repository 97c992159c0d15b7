package dev.lockstep.spark;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsOverwrite;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.sources.AlwaysTrue;
import org.apache.spark.sql.sources.Filter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch writes: append, static overwrite (by partition filter, or the whole table) and dynamic
 * partition overwrite.
 *
 * <ol>
 *   <li>When Spark starts the write job ({@link #toBatch}, before any task runs), the driver
 *       records the table's latest snapshot: the overwrite's base. An overwrite fails when another
 *       commit added data to a replaced partition after it.
 *   <li>Each task writes with its own engine {@link TableWrite} (write-only: tasks never compact or
 *       expire) and hands its {@link CommitMessage}s to the driver in its Spark commit message. An
 *       aborted task (failed, retried, or a speculative copy denied by Spark's commit coordinator)
 *       deletes every file it wrote.
 *   <li>The driver commits all messages in one engine commit under a commit user unique to this
 *       write ({@code spark-<query id>-<uuid>}, identifier 1), so a retried commit after an unknown
 *       outcome lands at most once. Messages of a task attempt that reached the driver but is not
 *       the one Spark chose for its partition are deleted, never committed.
 *   <li>Primary-key tables ask Spark to cluster rows by the primary key, so that all writes of a
 *       key come from one task and their order within the commit is defined.
 * </ol>
 */
final class LockstepWrite implements Write, RequiresDistributionAndOrdering {

  private static final Logger LOG = LoggerFactory.getLogger(LockstepWrite.class);

  enum Mode {
    APPEND,
    STATIC_OVERWRITE,
    DYNAMIC_OVERWRITE
  }

  private final LockstepSparkTable table;
  private final LogicalWriteInfo info;
  private final Mode mode;
  private final List<Filter> overwriteFilters;

  private LockstepWrite(
      LockstepSparkTable table, LogicalWriteInfo info, Mode mode, List<Filter> overwriteFilters) {
    this.table = table;
    this.info = info;
    this.mode = mode;
    this.overwriteFilters = overwriteFilters;
  }

  @Override
  public String description() {
    return "lockstep " + mode + " " + table.name();
  }

  @Override
  public Distribution requiredDistribution() {
    List<String> keys = table.tableSchema().primaryKeys();
    if (keys.isEmpty()) {
      return Distributions.unspecified();
    }
    return Distributions.clustered(
        keys.stream().map(Expressions::column).toArray(Expression[]::new));
  }

  @Override
  public SortOrder[] requiredOrdering() {
    return new SortOrder[0];
  }

  @Override
  public BatchWrite toBatch() {
    long base;
    try (FileStoreTable t = table.catalog().openTable(table.identifier())) {
      base = t.snapshotManager().latest().map(s -> s.id()).orElse(0L);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open " + table.name() + ": " + e.getMessage(), e);
    }
    String commitUser = "spark-" + info.queryId() + "-" + UUID.randomUUID();
    return new Batch(table, mode, overwriteFilters, base, commitUser);
  }

  /** What one task attempt wrote. */
  record TaskMessage(int partitionId, long taskId, int attempt, List<CommitMessage> messages)
      implements WriterCommitMessage {}

  static final class Batch implements BatchWrite {
    private final LockstepSparkTable table;
    private final Mode mode;
    private final List<Filter> overwriteFilters;
    private final long baseSnapshot;
    private final String commitUser;

    /** Every task attempt's message that reached the driver, by task id. */
    private final Map<Long, TaskMessage> received = new ConcurrentHashMap<>();

    private volatile boolean outcomeUnknown;
    private volatile CommitResult result;

    Batch(
        LockstepSparkTable table,
        Mode mode,
        List<Filter> overwriteFilters,
        long baseSnapshot,
        String commitUser) {
      this.table = table;
      this.mode = mode;
      this.overwriteFilters = overwriteFilters;
      this.baseSnapshot = baseSnapshot;
      this.commitUser = commitUser;
    }

    String commitUser() {
      return commitUser;
    }

    CommitResult result() {
      return result;
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo physical) {
      return new WriterFactory(table.catalog().loader(table.identifier()), commitUser);
    }

    @Override
    public boolean useCommitCoordinator() {
      return true;
    }

    @Override
    public void onDataWriterCommit(WriterCommitMessage message) {
      if (message instanceof TaskMessage m) {
        received.put(m.taskId(), m);
      }
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
      List<CommitMessage> all = new ArrayList<>();
      Set<Long> chosen = ConcurrentHashMap.newKeySet();
      Set<Integer> partitions = ConcurrentHashMap.newKeySet();
      for (WriterCommitMessage wm : messages) {
        if (wm instanceof TaskMessage m) {
          if (!partitions.add(m.partitionId())) {
            throw new IllegalStateException(
                "Two task attempts of Spark partition "
                    + m.partitionId()
                    + " were handed to the commit of "
                    + table.name());
          }
          chosen.add(m.taskId());
          for (CommitMessage c : m.messages()) {
            all.add(withBase(c, Math.min(c.baseSnapshotId(), baseSnapshot)));
          }
        }
      }
      try (FileStoreTable t = table.catalog().openTable(table.identifier());
          TableCommit commit = t.newCommit(commitUser)) {
        deleteUnchosen(t, chosen);
        try {
          result = commitWithRetries(t, commit, all);
        } catch (IOException | RuntimeException e) {
          // Spark calls abort() next: its files may go only when the failure says nothing was
          // published (CleanableFailure); an unknown outcome, a store error or a bug keeps them.
          if (!(e instanceof CleanableFailure)) {
            outcomeUnknown = true;
          }
          throw e;
        }
        LOG.info("Spark {} of {} committed as {} by {}", mode, table.name(), result, commitUser);
      } catch (IOException e) {
        throw new UncheckedIOException(e.getMessage(), e);
      }
    }

    private CommitResult commitWithRetries(
        FileStoreTable t, TableCommit commit, List<CommitMessage> all) throws IOException {
      for (int attempt = 1; ; attempt++) {
        try {
          switch (mode) {
            case APPEND:
              return commit.commit(1, all);
            case DYNAMIC_OVERWRITE:
              if (all.isEmpty()) {
                return null;
              }
              return commit.overwrite(1, null, all);
            default:
              List<CommitMessage> withBase = new ArrayList<>(all);
              // An empty message carries the driver's base when no task wrote anything.
              withBase.add(
                  new CommitMessage(
                      "", 0, t.options().bucket(), List.of(), List.of(), List.of(), baseSnapshot));
              return commit.overwrite(1, pathFilter(t), withBase);
          }
        } catch (CommitStateUnknownException e) {
          outcomeUnknown = true;
          if (attempt >= 3) {
            throw new IllegalStateException(
                "The commit of "
                    + table.name()
                    + " by "
                    + commitUser
                    + " has an unknown outcome after "
                    + attempt
                    + " attempts; its"
                    + " files were kept. Check the table's snapshots for this commit user: "
                    + e.getMessage(),
                e);
          }
          LOG.warn(
              "Commit of {} by {} has an unknown outcome; committing again",
              table.name(),
              commitUser,
              e);
          outcomeUnknown = false;
        }
      }
    }

    private Predicate<String> pathFilter(FileStoreTable t) {
      if (overwriteFilters.stream().allMatch(f -> f instanceof AlwaysTrue)) {
        return p -> true;
      }
      Predicate<Map<String, Object>> values =
          PartitionFilters.predicate(overwriteFilters, table.tableSchema());
      return path -> values.test(t.partitionPath().toMap(path));
    }

    private void deleteUnchosen(FileStoreTable t, Set<Long> chosen) {
      for (TaskMessage m : received.values()) {
        if (!chosen.contains(m.taskId())) {
          LOG.info(
              "Deleting the files of task attempt {} (Spark partition {}, attempt {}):"
                  + " another attempt's output is committed",
              m.taskId(),
              m.partitionId(),
              m.attempt());
          deleteFiles(t, m.messages());
        }
      }
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
      if (outcomeUnknown) {
        LOG.warn(
            "Not deleting the files of {}'s write by {}: its commit may have landed, or"
                + " failed in a way that does not say nothing was published; orphan-file removal"
                + " collects them if it did not land",
            table.name(),
            commitUser);
        return;
      }
      try (FileStoreTable t = table.catalog().openTable(table.identifier());
          TableCommit commit = t.newCommit(commitUser)) {
        if (commit.isCommitted(1)) {
          return;
        }
        Map<Long, TaskMessage> all = new LinkedHashMap<>(received);
        for (WriterCommitMessage wm : messages) {
          if (wm instanceof TaskMessage m) {
            all.put(m.taskId(), m);
          }
        }
        for (TaskMessage m : all.values()) {
          deleteFiles(t, m.messages());
        }
      } catch (IOException e) {
        LOG.warn(
            "Could not delete the files of an aborted write of {}; orphan-file removal"
                + " collects them",
            table.name(),
            e);
      }
    }
  }

  static CommitMessage withBase(CommitMessage m, long base) {
    // Keeps the changelog files and the dynamic-bucket key assignments.
    return m.withBaseSnapshotId(base);
  }

  static void deleteFiles(FileStoreTable t, List<CommitMessage> messages) {
    for (CommitMessage m : messages) {
      List<DataFileMeta> files = new ArrayList<>(m.newFiles());
      files.addAll(m.compactAfter());
      files.addAll(m.changelogFiles());
      for (DataFileMeta f : files) {
        try {
          t.fileIO().delete(t.bucketPath(m.partition(), m.bucket()).child(f.fileName()), false);
        } catch (IOException e) {
          LOG.warn("Could not delete {}; orphan-file removal collects it", f.fileName(), e);
        }
      }
    }
  }

  /** Serializable: opens the table on the executor for each task. */
  static final class WriterFactory implements DataWriterFactory {
    private static final long serialVersionUID = 1L;
    private final TableLoader loader;
    private final String commitUser;

    WriterFactory(TableLoader loader, String commitUser) {
      this.loader = loader;
      this.commitUser = commitUser;
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
      TaskContext context = TaskContext.get();
      int attempt = context == null ? 0 : context.attemptNumber();
      try {
        TableLoader.Opened opened = loader.open(Map.of(CoreOptions.WRITE_ONLY, "true"));
        return new TaskWriter(
            opened, commitUser, opened.table().schema().rowType(), partitionId, taskId, attempt);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot open the Lockstep table "
                + loader.identifier()
                + " in a write task: "
                + e.getMessage(),
            e);
      }
    }
  }

  /** One task attempt's writer. */
  static final class TaskWriter implements DataWriter<InternalRow> {
    private final TableLoader.Opened opened;
    private final TableWrite write;
    private final RowType rowType;
    private final int partitionId;
    private final long taskId;
    private final int attempt;
    private List<CommitMessage> prepared;

    TaskWriter(
        TableLoader.Opened opened,
        String commitUser,
        RowType rowType,
        int partitionId,
        long taskId,
        int attempt) {
      this.opened = opened;
      this.write = opened.table().newWrite(commitUser);
      this.rowType = rowType;
      this.partitionId = partitionId;
      this.taskId = taskId;
      this.attempt = attempt;
    }

    @Override
    public void write(InternalRow row) throws IOException {
      write.write(SparkTypes.toLockstep(row, rowType));
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
      prepared = write.prepareCommit();
      return new TaskMessage(partitionId, taskId, attempt, prepared);
    }

    @Override
    public void abort() {
      // close() deletes every file not handed out; files of prepared messages are deleted here.
      write.close();
      if (prepared != null) {
        deleteFiles(opened.table(), prepared);
      }
    }

    @Override
    public void close() throws IOException {
      try {
        write.close();
      } finally {
        opened.close();
      }
    }
  }

  /** Chooses the mode: append by default, or one of the overwrites. */
  static final class Builder implements WriteBuilder, SupportsOverwrite, SupportsDynamicOverwrite {
    private final LockstepSparkTable table;
    private final LogicalWriteInfo info;
    private Mode mode = Mode.APPEND;
    private List<Filter> filters = List.of();

    Builder(LockstepSparkTable table, LogicalWriteInfo info) {
      this.table = table;
      this.info = info;
    }

    @Override
    public WriteBuilder overwrite(Filter[] overwriteFilters) {
      for (Filter f : overwriteFilters) {
        if (!PartitionFilters.isPartitionFilter(f, table.tableSchema())) {
          throw new IllegalArgumentException(
              "Lockstep overwrites whole partitions: the"
                  + " condition "
                  + f
                  + " names a column that is not a partition column of "
                  + table.name()
                  + " (partition columns: "
                  + table.tableSchema().partitionKeys()
                  + "); overwrite by partition values, or use dynamic partition overwrite");
        }
      }
      mode = Mode.STATIC_OVERWRITE;
      filters = Arrays.asList(overwriteFilters);
      return this;
    }

    @Override
    public WriteBuilder truncate() {
      mode = Mode.STATIC_OVERWRITE;
      filters = List.of(new AlwaysTrue());
      return this;
    }

    @Override
    public WriteBuilder overwriteDynamicPartitions() {
      mode = Mode.DYNAMIC_OVERWRITE;
      filters = List.of();
      return this;
    }

    @Override
    public Write build() {
      return new LockstepWrite(table, info, mode, filters);
    }
  }
}
