package dev.lockstep.engine.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Orphan-file removal in one process: what is an orphan, what never is, the report, the guard. */
class OrphanFilesCleanerTest {

  private static final FileTime TWO_DAYS_AGO =
      FileTime.from(Instant.now().minus(Duration.ofDays(2)));

  @TempDir Path dir;

  private FileStoreTable table() throws Exception {
    TestTables.keyValueTable(dir, Map.of("num-sorted-run.compaction-trigger", "2"));
    FileStoreTable table = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
    var commit = table.newCommit("w");
    try (TableWrite write = table.newWrite("w")) {
      for (int b = 1; b <= 4; b++) {
        for (int k = 0; k < 10; k++) {
          write.write(GenericRow.of(k, "v" + b));
        }
        write.compact(true);
        commit.commit(b, write.prepareCommit());
      }
    }
    return table;
  }

  private Path tableDir() {
    return dir.resolve("db.db/kv");
  }

  private Path plant(String relative, FileTime modified) throws Exception {
    Path file = tableDir().resolve(relative);
    Files.createDirectories(file.getParent());
    Files.write(file, new byte[123]);
    Files.setLastModifiedTime(file, modified);
    return file;
  }

  private Set<String> allFiles() throws Exception {
    try (Stream<Path> files = Files.walk(tableDir())) {
      return files
          .filter(Files::isRegularFile)
          .map(p -> tableDir().relativize(p).toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  @Test
  void removesOldUnreferencedFilesAndNothingElse() throws Exception {
    FileStoreTable table = table();
    Map<Integer, String> content = Writers.read(table, -1);
    // Every real file is old too: what keeps them is being referenced (or being metadata).
    try (Stream<Path> files = Files.walk(tableDir())) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(p, TWO_DAYS_AGO);
      }
    }
    Set<String> real = allFiles();
    List<String> orphans =
        List.of(
            "bucket-0/data-orphan.avro",
            "manifest/manifest-orphan.avro",
            "manifest/manifest-list-orphan.avro",
            "bucket-0/.data-x.avro.1234.inprogress",
            "snapshot/.snapshot-9.5678.tmp",
            "schema/.schema-1.9abc.tmp");
    for (String o : orphans) {
      plant(o, TWO_DAYS_AGO);
    }
    plant("bucket-0/data-young.avro", FileTime.from(Instant.now()));

    OrphanReport dry = new OrphanFilesCleaner(table, Duration.ofDays(1), true).clean();
    assertThat(dry.removed())
        .extracting(OrphanReport.RemovedFile::path)
        .containsExactlyInAnyOrderElementsOf(orphans);
    assertThat(dry.removedBytes()).isEqualTo(123L * orphans.size());
    assertThat(dry.youngerThanGuard()).isEqualTo(1);
    assertThat(dry.referencedFiles()).isPositive();
    assertThat(allFiles()).containsAll(orphans);

    OrphanReport report = new OrphanFilesCleaner(table, Duration.ofDays(1), false).clean();
    assertThat(report.removed())
        .extracting(OrphanReport.RemovedFile::path)
        .containsExactlyInAnyOrderElementsOf(orphans);
    Set<String> after = allFiles();
    assertThat(after)
        .containsAll(real)
        .contains("bucket-0/data-young.avro")
        .doesNotContainAnyElementsOf(orphans);
    assertThat(real).contains("snapshot/LATEST", "schema/schema-0", "snapshot/snapshot-1");
    assertThat(Writers.read(TestTables.catalog(dir).getTable(Identifier.parse("db.kv")), -1))
        .isEqualTo(content);
    assertThat(Writers.missingFilesOfRetainedSnapshots(table)).isEmpty();
  }

  /**
   * Behind an unreadable snapshot, an unreferenced file is kept when it is not newer than the first
   * readable snapshot after it (the unreadable one, committed before that, may name it), to the
   * millisecond; a file newer than that snapshot is an orphan.
   */
  @Test
  void behindAnUnreadableSnapshotFilesUpToTheNextReadableOneAreKept() throws Exception {
    FileStoreTable table = table();
    long latest = table.snapshotManager().latestId().getAsLong();
    long readableAfter = table.snapshotManager().get(latest).timeMillis();
    Files.write(tableDir().resolve("snapshot/snapshot-" + (latest - 1)), "{ not json".getBytes());
    Path atTheSnapshot = plant("bucket-0/data-kept.avro", FileTime.fromMillis(readableAfter));
    Path newer = plant("bucket-0/data-newer.avro", FileTime.fromMillis(readableAfter + 1));
    while (System.currentTimeMillis() <= readableAfter + 1) {
      Thread.sleep(1); // the guard of 0 must find the newer file old enough
    }

    OrphanReport report =
        new OrphanFilesCleaner(
                TestTables.catalog(dir).getTable(Identifier.parse("db.kv")), Duration.ZERO, false)
            .clean();

    assertThat(report.unreadable()).singleElement().asString().contains("snapshot " + (latest - 1));
    assertThat(atTheSnapshot).exists();
    assertThat(report.keptUnprovable()).isPositive();
    assertThat(newer).doesNotExist();
    assertThat(report.removed())
        .extracting(OrphanReport.RemovedFile::path)
        .contains("bucket-0/data-newer.avro")
        .doesNotContain("bucket-0/data-kept.avro");
  }

  /**
   * Hidden files in the metadata directories that are not a writer's temporary files (the checksum
   * files a Hadoop local file system writes beside each file) are never removed; a temporary file
   * there is, whichever writer left it ({@code .tmp} or {@code .inprogress}).
   */
  @Test
  void hiddenMetadataFilesStayAndOnlyTemporaryOnesGo() throws Exception {
    FileStoreTable table = table();
    List<String> kept = List.of("snapshot/.snapshot-1.crc", "schema/.schema-0.crc");
    List<String> temporary =
        List.of("snapshot/.snapshot-9.5678.inprogress", "schema/.schema-1.9abc.tmp");
    for (String f : kept) {
      plant(f, TWO_DAYS_AGO);
    }
    for (String f : temporary) {
      plant(f, TWO_DAYS_AGO);
    }

    OrphanReport report = new OrphanFilesCleaner(table, Duration.ofDays(1), false).clean();

    assertThat(report.removed())
        .extracting(OrphanReport.RemovedFile::path)
        .containsExactlyInAnyOrderElementsOf(temporary);
    assertThat(allFiles()).containsAll(kept).doesNotContainAnyElementsOf(temporary);
  }

  /**
   * Interrupted while removing (the CLI's Ctrl-C): it stops before its next delete, says how many
   * it removed, and the rest stays for the next run.
   */
  @Test
  void anInterruptStopsTheRemovalBeforeItsNextDelete() throws Exception {
    table();
    List<String> orphans = List.of("bucket-0/data-orphan-1.avro", "bucket-0/data-orphan-2.avro");
    for (String o : orphans) {
      plant(o, TWO_DAYS_AGO);
    }
    AtomicInteger deletes = new AtomicInteger();
    FileIO interruptingAfterOneDelete =
        new CapabilityHidingFileIO(new LocalFileIO()) {
          @Override
          public boolean delete(dev.lockstep.fs.Path path, boolean recursive) throws IOException {
            boolean deleted = super.delete(path, recursive);
            if (deletes.incrementAndGet() == 1) {
              Thread.currentThread().interrupt();
            }
            return deleted;
          }
        };
    FileStoreTable table =
        new FileSystemCatalog(
                interruptingAfterOneDelete, dev.lockstep.fs.Path.of(dir.toString()), Map.of())
            .getTable(Identifier.parse("db.kv"));
    OrphanFilesCleaner cleaner = new OrphanFilesCleaner(table, Duration.ofDays(1), false);
    try {
      assertThatThrownBy(cleaner::clean)
          .isInstanceOf(InterruptedIOException.class)
          .hasMessageContaining("interrupted after 1 file(s)");
    } finally {
      Thread.interrupted();
    }
    assertThat(deletes).hasValue(1);
    assertThat(cleaner.removedSoFar()).isEqualTo(1);
    assertThat(orphans.stream().filter(o -> Files.exists(tableDir().resolve(o)))).hasSize(1);
  }

  @Test
  void afterACompleteExpirationNothingIsOrphanedEvenWithAZeroGuard() throws Exception {
    FileStoreTable table = table();
    new SnapshotExpiration(table, new MaintenanceOptions(1, 1, Duration.ZERO, 100)).expire();
    Set<String> kept = allFiles();
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, false).clean();
    assertThat(report.removed()).isEmpty();
    assertThat(allFiles()).isEqualTo(kept);
    assertThat(Writers.read(table, -1)).hasSize(10).containsEntry(3, "v4");
  }

  @Test
  void theGuardIsWhatProtectsFilesOfWritersWhoseCommitIsInFlight() throws Exception {
    FileStoreTable table = table();
    TableWrite slow = table.newWrite("slow");
    for (int k = 100; k < 105; k++) {
      slow.write(GenericRow.of(k, "in flight"));
    }
    List<CommitMessage> inFlight = slow.prepareCommit();
    // The writer's uncommitted files: its flush, or (when its background compaction merged the
    // flush away before prepareCommit returned) the compaction's output. Which one is a race.
    List<String> uncommitted = new java.util.ArrayList<>();
    for (CommitMessage m : inFlight) {
      java.util.stream.Stream.concat(m.newFiles().stream(), m.compactAfter().stream())
          .map(f -> "bucket-" + m.bucket() + "/" + f.fileName())
          .filter(f -> Files.exists(tableDir().resolve(f)))
          .forEach(uncommitted::add);
    }
    assertThat(uncommitted).isNotEmpty();

    // A guard longer than the batch keeps the writer's files: they are young.
    OrphanReport guarded = new OrphanFilesCleaner(table, Duration.ofMinutes(1), false).clean();
    assertThat(guarded.removed()).isEmpty();
    assertThat(guarded.youngerThanGuard()).isPositive();

    // A guard of 0 cannot tell them from orphans: this is why it is unsafe beside writers.
    OrphanReport unguarded = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    assertThat(unguarded.removed())
        .extracting(OrphanReport.RemovedFile::path)
        .containsAll(uncommitted);

    table.newCommit("slow").commit(1, inFlight);
    slow.close();
    assertThat(Writers.read(table, -1)).hasSize(15).containsEntry(101, "in flight");
  }

  @Test
  void withoutAnyVisibleSnapshotNothingIsRemoved() throws Exception {
    TestTables.keyValueTable(dir, Map.of());
    FileStoreTable empty = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
    plant("bucket-0/data-left-by-a-failed-first-commit.avro", TWO_DAYS_AGO);
    OrphanReport report = new OrphanFilesCleaner(empty, Duration.ZERO, false).clean();
    assertThat(report.removed()).isEmpty();
    assertThat(allFiles()).contains("bucket-0/data-left-by-a-failed-first-commit.avro");
  }

  @Test
  void aNegativeGuardIsRefused() {
    assertThatThrownBy(() -> new OrphanFilesCleaner(table(), Duration.ofSeconds(-1), true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("older-than");
  }

  @Test
  void aDeletedDataFileOfALiveSnapshotIsNotAnOrphanButAMissingFile() throws Exception {
    FileStoreTable table = table();
    String live = table.newScan().plan().splits().get(0).files().get(0).fileName();
    Files.delete(tableDir().resolve("bucket-0/" + live));
    FileStoreTable reopened = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
    assertThatThrownBy(() -> Writers.read(reopened, -1))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining(live);
  }

  /**
   * A snapshot file below the history (an expired id published again by a late write) is not
   * history, but orphan removal keeps every file it alone names until a person removes it: its
   * manifest lists (base, prior deltas, delta, changelog), their manifests, its data and changelog
   * files and its bucket index. Built here by expiring the history up to a compaction and then
   * putting back snapshot 3 and the files it names, as a late write would have left them.
   */
  @Test
  void aStraySnapshotBelowTheHistoryKeepsEveryFileItAloneNames() throws Exception {
    TestTables.keyValueTable(
        dir, Map.of("bucket", "-1", "changelog-producer", "input", "write-only", "true"));
    FileStoreTable table = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
    for (int c = 1; c <= 3; c++) {
      try (TableWrite write = table.newWrite("w")) {
        write.write(GenericRow.of(c, "v" + c));
        table.newCommit("w").commit(c, write.prepareCommit());
      }
    }
    Snapshot stray = table.snapshotManager().readUncached(3).orElseThrow();
    Set<String> named = namedBy(table, stray);
    Map<String, byte[]> saved = new java.util.HashMap<>();
    for (String f : named) {
      saved.put(f, Files.readAllBytes(tableDir().resolve(f)));
    }
    // The history moves on: a full compaction and new keys (a new bucket index), then everything
    // before the latest snapshot expires.
    FileStoreTable compacting = table.copyWithOptions(Map.of("write-only", "false"));
    try (TableWrite write = compacting.newWrite("c")) {
      for (int k = 10; k < 20; k++) {
        write.write(GenericRow.of(k, "later"));
      }
      write.compact(true);
      compacting.newCommit("c").commit(1, write.prepareCommit());
    }
    for (int c = 4; c <= 13; c++) {
      try (TableWrite write = table.newWrite("w")) {
        write.write(GenericRow.of(100 + c, "v" + c));
        table.newCommit("w").commit(c, write.prepareCommit());
      }
    }
    new SnapshotExpiration(table, new MaintenanceOptions(1, 1, Duration.ZERO, 100)).expire();
    Set<String> gone = new TreeSet<>(named);
    gone.removeAll(allFiles());
    // Only the stray names these now: each kind must be among them, or the test proves nothing.
    assertThat(gone)
        .contains(
            "manifest/" + stray.baseManifestList(),
            "manifest/" + stray.priorDeltas().get(0).deltaManifestList(),
            "manifest/" + stray.deltaManifestList(),
            "manifest/" + stray.changelogManifestList(),
            "manifest/" + stray.indexManifest())
        .anyMatch(f -> f.startsWith("bucket-0/data-"))
        .anyMatch(f -> f.startsWith("bucket-0/changelog-"));
    // The late write: snapshot 3 and its files back, all of them old.
    for (String f : gone) {
      Files.write(tableDir().resolve(f), saved.get(f));
    }
    Files.write(tableDir().resolve("snapshot/snapshot-3"), SnapshotManager.serialize(stray));
    try (Stream<Path> files = Files.walk(tableDir())) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(p, TWO_DAYS_AGO);
      }
    }
    plant("bucket-0/data-orphan.avro", TWO_DAYS_AGO);
    FileStoreTable reopened = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
    long earliest = reopened.snapshotManager().earliestId().getAsLong();
    assertThat(reopened.snapshotManager().belowHistory(earliest)).containsExactly(3L);

    OrphanReport report = new OrphanFilesCleaner(reopened, Duration.ZERO, false).clean();

    assertThat(report.removed())
        .extracting(OrphanReport.RemovedFile::path)
        .containsExactly("bucket-0/data-orphan.avro");
    assertThat(allFiles()).containsAll(named);
    assertThat(Writers.read(reopened, -1)).hasSize(23).containsEntry(3, "v3");
  }

  /** Every file {@code s} names, relative to the table directory. */
  private static Set<String> namedBy(FileStoreTable table, Snapshot s) throws Exception {
    Set<String> lists = new TreeSet<>();
    lists.add(s.baseManifestList());
    s.priorDeltas().forEach(p -> lists.add(p.deltaManifestList()));
    lists.add(s.deltaManifestList());
    lists.add(s.changelogManifestList());
    Set<String> named = new TreeSet<>();
    for (String list : lists) {
      named.add("manifest/" + list);
      for (ManifestFileMeta m : table.manifestList().read(list)) {
        named.add("manifest/" + m.fileName());
      }
    }
    FileStoreScan scan = new FileStoreScan(table);
    for (ManifestEntry e : scan.delta(s)) {
      named.add("bucket-" + e.bucket() + "/" + e.file().fileName());
    }
    for (ManifestEntry e : scan.changelog(s)) {
      named.add("bucket-" + e.bucket() + "/" + e.file().fileName());
    }
    named.add("manifest/" + s.indexManifest());
    for (IndexFileMeta f : table.indexManifest().read(s.indexManifest())) {
      named.add("manifest/" + f.fileName());
    }
    return named;
  }
}
