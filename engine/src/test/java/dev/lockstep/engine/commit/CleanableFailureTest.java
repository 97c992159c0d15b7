package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether a failed commit deletes the manifests it wrote is decided by one test, {@code instanceof
 * CleanableFailure}, never by the order of catch clauses: a failure that says nothing was published
 * lets them go; any other failure keeps them, since the commit may be live (orphan-file removal
 * collects them later). Real local store; the failures are injected right at the publish.
 */
class CleanableFailureTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable table(FileIO io, Map<String, String> options) throws IOException {
    FileSystemCatalog catalog = new FileSystemCatalog(io, Path.of(dir.toString()), options);
    Identifier id = new Identifier("db", "t");
    if (!catalog.tableExists(id)) {
      // Write-only: one snapshot per commit (writers that are not also compact the small files).
      catalog.createTable(
          id,
          Schema.newBuilder().column("n", DataType.bigint()).option("write-only", "true").build());
    }
    return catalog.getTable(id);
  }

  private static List<CommitMessage> written(FileStoreTable table, String user, long n)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(n));
      return write.prepareCommit();
    }
  }

  /** Manifests and manifest lists no snapshot references. */
  private static List<String> unreferencedManifests(FileStoreTable table) throws Exception {
    // A guard of 0 still keeps a file of age 0 (written in this very millisecond): let the
    // clock pass the files just written.
    Thread.sleep(5);
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    return report.removed().stream()
        .map(OrphanReport.RemovedFile::path)
        .filter(p -> p.startsWith("manifest/"))
        .toList();
  }

  /** Right before our snapshot-2 reaches the store, run {@code action} once. */
  private static void atSnapshot2(FaultInjectingStore io, IoAction action) {
    AtomicBoolean done = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-2") && done.compareAndSet(false, true)) {
            action.run();
          }
        });
  }

  @FunctionalInterface
  private interface IoAction {
    void run() throws IOException;
  }

  @Test
  void aFailureThatDoesNotSayNothingWasPublishedKeepsTheManifests() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, Map.of());
    table.newCommit("u").commit(1, written(table, "u", 1));
    assertThat(unreferencedManifests(table)).isEmpty();
    // Not an IOException at all, so no catch clause of the publish path names it: a bug in a
    // store client, say. Whether the snapshot landed is not known to the commit.
    atSnapshot2(
        io,
        () -> {
          throw new IllegalStateException("a store client bug");
        });
    List<CommitMessage> messages = written(table, "u", 2);

    assertThatThrownBy(() -> table.newCommit("u").commit(2, messages))
        .isInstanceOf(IllegalStateException.class)
        .isNotInstanceOf(CleanableFailure.class);

    assertThat(unreferencedManifests(table))
        .as("the delta manifest and its list are kept")
        .hasSize(2);
    // The same messages commit later, and nothing was lost.
    io.clearFaults();
    FileStoreTable again = table(new LocalFileIO(), Map.of());
    assertThat(again.newCommit("u").commit(2, messages).dataSnapshotId()).isEqualTo(2);
    assertThat(again.newRead().readAll(again.newScan().plan())).hasSize(2);
  }

  @Test
  void aCleanableFailureDeletesTheManifestsItWrote() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, Map.of("commit.max-retries", "0"));
    table.newCommit("u").commit(1, written(table, "u", 1));
    // Another writer takes snapshot 2 right before ours lands; with no retries left, the commit
    // fails with CommitFailedException: nothing of it was published.
    atSnapshot2(
        io,
        () -> {
          FileStoreTable other = table(new LocalFileIO(), Map.of());
          other.newCommit("other").commit(1, written(other, "other", 7));
        });
    List<CommitMessage> messages = written(table, "u", 2);

    assertThatThrownBy(() -> table.newCommit("u").commit(2, messages))
        .isInstanceOf(CommitFailedException.class)
        .isInstanceOf(CleanableFailure.class);

    assertThat(unreferencedManifests(table)).isEmpty();
  }

  /** The manifests and lists in the table's directory (none is named before snapshot 1). */
  private List<String> manifestFiles() throws IOException {
    java.nio.file.Path manifests = dir.resolve("db.db/t/manifest");
    if (!java.nio.file.Files.isDirectory(manifests)) {
      return List.of();
    }
    try (var files = java.nio.file.Files.list(manifests)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  /**
   * The first snapshot's attempt writes a base manifest list besides the delta manifest and its
   * list: a failure that may have published keeps all three (snapshot 1 may name them).
   */
  @Test
  void aFirstSnapshotWhoseOutcomeIsUnclearKeepsItsBaseListToo() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, Map.of());
    AtomicBoolean done = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && done.compareAndSet(false, true)) {
            throw new IllegalStateException("a store client bug");
          }
        });
    List<CommitMessage> messages = written(table, "u", 1);

    assertThatThrownBy(() -> table.newCommit("u").commit(1, messages))
        .isInstanceOf(IllegalStateException.class);

    assertThat(manifestFiles())
        .as("delta manifest, delta list and base list")
        .hasSize(3)
        .filteredOn(n -> n.startsWith("manifest-list-"))
        .hasSize(2);
  }

  @Test
  void aFirstSnapshotThatFailedBeforeLandingDeletesItsBaseListToo() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, Map.of());
    io.failNextMatching(
        Operation.CREATE,
        p -> p.name().equals("snapshot-1"),
        dev.lockstep.conformance.FaultPlan.Fault.FAIL_BEFORE_LANDING,
        3);
    List<CommitMessage> messages = written(table, "u", 1);

    assertThatThrownBy(() -> table.newCommit("u").commit(1, messages))
        .isInstanceOf(CleanableFailure.class);

    assertThat(manifestFiles()).isEmpty();
    io.clearFaults();
    assertThat(table.newCommit("u").commit(1, messages).dataSnapshotId()).isEqualTo(1);
  }

  /**
   * Every {@value CommitLoop#MAX_PRIOR_DELTAS}th snapshot or so writes a fresh base list and merges
   * the small manifests into new ones: a failure before landing deletes the merged manifests too,
   * and the manifest directory is as before the commit.
   */
  @Test
  void anAttemptThatMergedManifestsDeletesThemWhenItFailsBeforeLanding() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, Map.of("manifest.merge-min-count", "2"));
    long n = 1;
    for (; n <= CommitLoop.MAX_PRIOR_DELTAS + 1; n++) {
      table.newCommit("u").commit(n, written(table, "u", n));
    }
    assertThat(table.snapshotManager().latest().orElseThrow().priorDeltas())
        .as("the next snapshot writes a fresh base list")
        .hasSize(CommitLoop.MAX_PRIOR_DELTAS);
    List<CommitMessage> messages = written(table, "u", n);
    List<String> before = manifestFiles();
    io.failNextMatching(
        Operation.CREATE,
        p -> p.name().startsWith("snapshot-"),
        dev.lockstep.conformance.FaultPlan.Fault.FAIL_BEFORE_LANDING,
        3);
    List<String> written = new java.util.ArrayList<>();
    io.beforeLanding(Operation.WRITE, (op, path) -> written.add(path.name()));

    long failing = n;
    assertThatThrownBy(() -> table.newCommit("u").commit(failing, messages))
        .isInstanceOf(CleanableFailure.class);
    io.clearFaults();

    assertThat(written)
        .as("merged manifests were written")
        .filteredOn(name -> name.startsWith("manifest-") && !name.startsWith("manifest-list-"))
        .hasSizeGreaterThan(1);
    assertThat(manifestFiles()).isEqualTo(before);
    assertThat(table.newCommit("u").commit(n, messages).dataSnapshotId()).isEqualTo(n);
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize((int) n);
  }

  /**
   * The base list's write fails after the attempt merged manifests (writing the manifests of the
   * snapshot, before anything is published): the attempt deletes the merged manifests it wrote. The
   * failure is a plain store error, not a CleanableFailure, so the commit's delta manifest and list
   * stay (orphan-file removal collects them).
   */
  @Test
  void anAttemptWhoseBaseListWriteFailsDeletesTheManifestsItMerged() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, Map.of("manifest.merge-min-count", "2"));
    long n = 1;
    for (; n <= CommitLoop.MAX_PRIOR_DELTAS + 1; n++) {
      table.newCommit("u").commit(n, written(table, "u", n));
    }
    List<CommitMessage> messages = written(table, "u", n);
    List<String> before = manifestFiles();
    List<String> written = new java.util.ArrayList<>();
    java.util.concurrent.atomic.AtomicInteger lists =
        new java.util.concurrent.atomic.AtomicInteger();
    io.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          written.add(path.name());
          // The first list is the delta list, the second the attempt's base list.
          if (path.name().startsWith("manifest-list-") && lists.incrementAndGet() == 2) {
            throw new IOException("injected: the base list's write fails");
          }
        });

    long failing = n;
    assertThatThrownBy(() -> table.newCommit("u").commit(failing, messages))
        .hasStackTraceContaining("injected: the base list's write fails");
    io.beforeLanding(Operation.WRITE, null);

    List<String> manifests =
        written.stream()
            .filter(name -> name.startsWith("manifest-") && !name.startsWith("manifest-list-"))
            .toList();
    assertThat(manifests).as("the delta manifest and merged manifests").hasSizeGreaterThan(1);
    List<String> deltaFiles =
        List.of(
            manifests.get(0),
            written.stream()
                .filter(name -> name.startsWith("manifest-list-"))
                .findFirst()
                .orElseThrow());
    List<String> expected = new java.util.ArrayList<>(before);
    expected.addAll(deltaFiles);
    assertThat(manifestFiles()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(table.newCommit("u").commit(n, messages).dataSnapshotId()).isEqualTo(n);
  }

  @Test
  void anUnknownOutcomeIsNeverCleanable() {
    assertThat(CleanableFailure.class.isAssignableFrom(CommitStateUnknownException.class))
        .isFalse();
  }
}
