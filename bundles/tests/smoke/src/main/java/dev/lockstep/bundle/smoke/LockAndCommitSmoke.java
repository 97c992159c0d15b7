package dev.lockstep.bundle.smoke;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.lock.LockServiceDiscovery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a user's job does with a bundle, and nothing more: open the table's store and a committer
 * from catalog options alone, through {@link java.util.ServiceLoader} on the thread's context class
 * loader, and commit snapshots.
 *
 * <ol>
 *   <li>Open the store for {@code tableUri} with {@link FileIODiscovery} (the scheme picks the
 *       bundle).
 *   <li>Open a {@link SnapshotCommitter} from the options: with {@code lock.enabled=true} it opens
 *       the lock service named by {@code lock.type} through {@link LockServiceDiscovery}.
 *   <li>Commit snapshots 1..{@value #COMMITS}, each with a unique commit id; each must be
 *       COMMITTED.
 *   <li>Commit snapshot 1 again with other content: it must be a CONFLICT (nobody wins twice).
 *   <li>Read every snapshot back through a fresh store; each must hold exactly what was committed.
 * </ol>
 *
 * <p>Any step that does not hold throws {@link IllegalStateException} naming it. Runs with nothing
 * but lock-api on its compile path, so the bundle under test must bring everything else.
 */
public final class LockAndCommitSmoke {

  /** Snapshots committed by one run. */
  public static final int COMMITS = 5;

  private LockAndCommitSmoke() {}

  /**
   * Runs the smoke on a fresh table at {@code tableUri}.
   *
   * @param options catalog options only: {@code lock.enabled}, {@code lock.type} and the store's
   *     and lock's own options
   * @param tableUri the table directory, e.g. {@code s3://bucket/warehouse/db.db/t}; must be empty
   * @return what happened, for the test to check: {@code strategy}, {@code store} (the store's
   *     class), {@code schemes} and {@code lockTypes} found, {@code snapshots} (the ids read back),
   *     {@code conflict} (the outcome of the second commit of snapshot 1)
   * @throws IllegalStateException when a step does not hold
   */
  public static Map<String, String> run(Map<String, String> options, String tableUri)
      throws IOException, InterruptedException {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put("schemes", FileIODiscovery.loaders(loader).keySet().toString());
    summary.put("lockTypes", LockServiceDiscovery.factories(loader).keySet().toString());

    Path table = Path.of(tableUri);
    Path snapshots = table.child("snapshot");
    String lockKey = "bundle_smoke." + table.name();
    List<byte[]> committed = new ArrayList<>();
    try (FileIO store = FileIODiscovery.open(table, options);
        SnapshotCommitter committer =
            SnapshotCommitter.builder(store, snapshots, lockKey).options(options).open()) {
      summary.put("store", store.getClass().getName());
      summary.put("strategy", committer.strategy());
      for (long id = 1; id <= COMMITS; id++) {
        byte[] content = snapshot(id);
        CommitOutcome outcome = committer.commit(id, SnapshotContent.of(content)).outcome();
        if (outcome != CommitOutcome.COMMITTED) {
          throw new IllegalStateException("Snapshot " + id + " of a fresh table was " + outcome);
        }
        committed.add(content);
      }
      CommitOutcome again = committer.commit(1, SnapshotContent.of(snapshot(1))).outcome();
      if (again != CommitOutcome.CONFLICT) {
        throw new IllegalStateException(
            "A second commit of snapshot 1 was "
                + again
                + ", not CONFLICT: two commits won one snapshot");
      }
      summary.put("conflict", again.name());
    }

    try (FileIO reader = FileIODiscovery.open(table, options)) {
      SnapshotLog log = new SnapshotLog(reader, snapshots);
      List<Long> ids = log.listIds();
      for (int i = 0; i < committed.size(); i++) {
        byte[] found = log.read(i + 1);
        if (!Arrays.equals(found, committed.get(i))) {
          throw new IllegalStateException(
              "Snapshot "
                  + (i + 1)
                  + " reads back as '"
                  + new String(found, StandardCharsets.UTF_8)
                  + "', not what was committed");
        }
      }
      summary.put("snapshots", ids.toString());
    }
    return summary;
  }

  private static byte[] snapshot(long id) {
    return ("{\"id\":"
            + id
            + ",\"commitUser\":\"bundle-smoke\",\"commitIdentifier\":"
            + id
            + ",\"commitId\":\""
            + UUID.randomUUID()
            + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }
}
