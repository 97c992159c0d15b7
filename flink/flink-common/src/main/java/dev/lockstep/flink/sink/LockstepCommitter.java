package dev.lockstep.flink.sink;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.flink.TableLoader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Committer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits each checkpoint's committable as one snapshot, identifier = checkpoint id, under the
 * committable's commit user.
 *
 * <ol>
 *   <li>Requests are committed in checkpoint order. A committable restored from state after a
 *       failover is committed again; the engine finds (user, identifier) in a snapshot and does
 *       nothing, so it lands exactly once.
 *   <li>Snapshot and file conflicts with other jobs (writers, the compaction job) are resolved
 *       inside the engine's commit; they never reach Flink and never restart the job.
 *   <li>An append that still cannot land (the engine's retry limits or an unknown outcome) is
 *       logged with its reason and handed back with {@code retryLater()}, together with every later
 *       checkpoint (never out of order). Flink 1.20 and 2.1 retry it at once, up to {@code
 *       sink.committer.retries} times, and then fail the job, which restarts from its last
 *       checkpoint and commits the restored committables again (exactly once through step 1). Other
 *       store errors fail the commit at once, with the same recovery.
 *   <li>An {@code INSERT OVERWRITE} that lost to a concurrent write of its partitions can never
 *       land as planned: the commit fails with the engine's message (the partition and the
 *       concurrent snapshot), which fails the batch job; nothing of it is committed.
 * </ol>
 */
final class LockstepCommitter implements Committer<LockstepCommittable> {

  private static final Logger LOG = LoggerFactory.getLogger(LockstepCommitter.class);

  private final TableLoader loader;
  private final OverwriteMode overwrite;
  private final Map<String, TableCommit> commits = new HashMap<>();
  private TableLoader.Opened opened;

  LockstepCommitter(TableLoader loader, OverwriteMode overwrite) {
    this.loader = loader;
    this.overwrite = overwrite;
  }

  private FileStoreTable table() throws IOException {
    if (opened == null) {
      opened = loader.open();
    }
    return opened.table();
  }

  @Override
  public void commit(Collection<CommitRequest<LockstepCommittable>> requests)
      throws IOException, InterruptedException {
    List<CommitRequest<LockstepCommittable>> ordered = new ArrayList<>(requests);
    ordered.sort(Comparator.comparingLong(r -> r.getCommittable().checkpointId()));
    boolean blocked = false;
    for (CommitRequest<LockstepCommittable> request : ordered) {
      if (blocked) {
        request.retryLater();
        continue;
      }
      LockstepCommittable c = request.getCommittable();
      try {
        commitOne(c);
      } catch (CommitFailedException | CommitStateUnknownException e) {
        if (overwrite != null && e instanceof CommitStateUnknownException) {
          throw new IOException(
              "INSERT OVERWRITE into "
                  + table().fullName()
                  + " has an unknown"
                  + " outcome (checkpoint "
                  + c.checkpointId()
                  + ", commit user '"
                  + c.commitUser()
                  + "'): check the table's latest snapshots for that user before re-running it: "
                  + e.getMessage(),
              e);
        }
        if (overwrite != null) {
          throw new IOException(
              "INSERT OVERWRITE into "
                  + table().fullName()
                  + " was not"
                  + " committed (checkpoint "
                  + c.checkpointId()
                  + ", commit user '"
                  + c.commitUser()
                  + "'): "
                  + e.getMessage(),
              e);
        }
        LOG.warn(
            "Commit of checkpoint {} (user '{}') to {} did not land and is retried with the"
                + " next checkpoint: {}",
            c.checkpointId(),
            c.commitUser(),
            table().fullName(),
            e.getMessage());
        request.retryLater();
        blocked = true;
      }
    }
  }

  private void commitOne(LockstepCommittable c) throws IOException {
    FileStoreTable table = table();
    TableCommit commit = commits.computeIfAbsent(c.commitUser(), table::newCommit);
    if (overwrite != null) {
      CommitResult r =
          commit.overwrite(
              c.checkpointId(),
              overwrite.partitionFilter(table.schema().partitionType()),
              withJobBase(c.messages(), table));
      LOG.info("Overwrite of checkpoint {} to {}: {}", c.checkpointId(), table.fullName(), r);
    } else if (!c.isEmpty()) {
      CommitResult r = commit.commit(c.checkpointId(), c.messages());
      LOG.debug("Commit of checkpoint {} to {}: {}", c.checkpointId(), table.fullName(), r);
    }
  }

  /**
   * The messages with the job's base ({@link OverwriteMode#baseSnapshotId()}, taken when the job
   * was built) where it is older than their writers' own; with no message at all, an empty one
   * carries it (static overwrite), so that one that wrote nothing still checks what others
   * committed since.
   */
  private List<CommitMessage> withJobBase(List<CommitMessage> messages, FileStoreTable table) {
    if (!overwrite.hasBase()) {
      return messages;
    }
    long base = overwrite.baseSnapshotId();
    List<CommitMessage> based = new ArrayList<>();
    for (CommitMessage m : messages) {
      based.add(
          // withBaseSnapshotId keeps the changelog files and the dynamic-bucket key assignments.
          m.baseSnapshotId() <= base ? m : m.withBaseSnapshotId(base));
    }
    if (based.isEmpty() && !overwrite.isDynamic()) {
      based.add(
          new CommitMessage(
              "", 0, table.options().bucket(), List.of(), List.of(), List.of(), base));
    }
    return based;
  }

  @Override
  public void close() throws Exception {
    // Each commit's lookup cache may hold a local directory (lookup.cache-dir).
    commits.values().forEach(TableCommit::close);
    commits.clear();
    if (opened != null) {
      opened.close();
    }
  }
}
