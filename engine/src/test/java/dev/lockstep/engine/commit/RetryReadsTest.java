package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit that lost a race rebases in memory: its retry reads the winner's snapshot and the
 * winner's delta (list and manifest) and nothing else from {@code manifest/}, however long the
 * table's history; its own delta manifest is written once for all attempts. Reads counted through
 * {@link FaultInjectingStore}'s hooks, on the real local store; the winner is another table object
 * committing at the exact moment that makes ours lose (right before our snapshot file lands).
 */
class RetryReadsTest {

  @TempDir java.nio.file.Path dir;

  private FileSystemCatalog catalog(FileIO io) {
    return new FileSystemCatalog(
        io, Path.of(dir.toString()), Map.of("commit.strategy", "atomic-create"));
  }

  private static DataFileMeta file(String name) {
    return new DataFileMeta(name, 1000, 10, null, null, 0, 9, 0, 0, 0, DataFileMeta.UNCOMMITTED);
  }

  private static List<CommitMessage> append(String name) {
    return List.of(new CommitMessage("", 0, 1, List.of(file(name)), List.of(), List.of(), 0));
  }

  @Test
  void aRetriedCommitReadsOnlyTheWinnersSnapshotAndDelta() throws Exception {
    FileStoreTable setup =
        catalog(new LocalFileIO())
            .createTable(
                new Identifier("db", "t"),
                Schema.newBuilder()
                    .column("n", DataType.bigint())
                    .option("manifest.merge-min-count", "5")
                    .build());
    // A history with merged manifests, base lists and prior deltas.
    TableCommit history = setup.newCommit("history");
    for (int c = 1; c <= 60; c++) {
      history.commit(c, append("old-" + c));
    }
    setup.close();

    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    List<String> reads = new ArrayList<>();
    List<String> writes = new ArrayList<>();
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (path.parent().name().equals("manifest")) {
            synchronized (reads) {
              reads.add(path.name());
            }
          }
        });
    io.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          if (path.parent().name().equals("manifest")) {
            synchronized (writes) {
              writes.add(path.name());
            }
          }
        });
    FileStoreTable ours = catalog(io).getTable(Identifier.parse("db.t"));
    TableCommit commit = ours.newCommit("ours");
    commit.commit(1, append("ours-1")); // warms this committer's caches: snapshot 61
    assertThat(ours.snapshotManager().latestId().orElseThrow()).isEqualTo(61);

    // Snapshot 62 goes to another writer right before ours lands; ours retries as 63.
    AtomicInteger raced = new AtomicInteger();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-62") && raced.getAndIncrement() == 0) {
            try (FileStoreTable other =
                catalog(new LocalFileIO()).getTable(Identifier.parse("db.t"))) {
              other.newCommit("other").commit(1, append("other-1"));
            }
          }
        });
    reads.clear();
    writes.clear();
    CommitResult result = commit.commit(2, append("ours-2"));

    assertThat(raced.get()).isPositive();
    assertThat(result.dataSnapshotId()).isEqualTo(63);
    Snapshot winner = ours.snapshotManager().get(62);
    assertThat(winner.commitUser()).isEqualTo("other");
    Set<String> winnersDelta = new HashSet<>();
    winnersDelta.add(winner.deltaManifestList());
    for (ManifestFileMeta m : ours.manifestList().read(winner.deltaManifestList())) {
      winnersDelta.add(m.fileName());
    }
    assertThat(new HashSet<>(reads))
        .as("manifest files the retried commit read (the winner's delta: %s)", winnersDelta)
        .isSubsetOf(winnersDelta);
    assertThat(reads).as("each read once").doesNotHaveDuplicates();
    // Its own delta manifest and delta list, once for both attempts (and a base list with merged
    // manifests when snapshot 63 is one that writes a base list).
    assertThat(writes.stream().filter(n -> !n.startsWith("manifest-list-")).count())
        .isLessThanOrEqualTo(1 + mergedIn(ours, 63));
    assertThat(live(ours)).contains("ours-1", "ours-2", "other-1", "old-1", "old-60");
    ours.close();
  }

  /** Manifests written by snapshot {@code id}'s merge (0 when it reused its parent's base list). */
  private static long mergedIn(FileStoreTable table, long id) throws IOException {
    Snapshot s = table.snapshotManager().get(id);
    if (!s.priorDeltas().isEmpty()) {
      return 0;
    }
    Set<String> before = new HashSet<>();
    for (ManifestFileMeta m : table.store().manifests(table.snapshotManager().get(id - 1))) {
      before.add(m.fileName());
    }
    return table.manifestList().read(s.baseManifestList()).stream()
        .filter(m -> !before.contains(m.fileName()))
        .count();
  }

  private static Set<String> live(FileStoreTable table) throws IOException {
    Set<String> names = new HashSet<>();
    table
        .store()
        .liveFiles(table.snapshotManager().latest().orElseThrow())
        .values()
        .forEach(e -> names.add(e.file().fileName()));
    return names;
  }
}
