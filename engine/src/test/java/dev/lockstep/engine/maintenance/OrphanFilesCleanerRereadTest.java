package dev.lockstep.engine.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.snapshot.SkippedDamage;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Orphan removal when a manifest or manifest list a snapshot names cannot be read: it reads again
 * while the miss may be an expiration running beside it, and only then calls the file lost, names
 * it (the table's skipped damage, {@link MissingMetadata}) and keeps every file the snapshot might
 * name. A write-only table of four snapshots, one key each, so that each snapshot's delta is its
 * own manifest.
 */
class OrphanFilesCleanerRereadTest {

  private static final FileTime TWO_DAYS_AGO =
      FileTime.from(Instant.now().minus(Duration.ofDays(2)));

  @TempDir Path dir;

  private FileStoreTable table;

  @BeforeEach
  void fourSnapshots() throws Exception {
    table = table(Map.of("write-only", "true"));
  }

  private FileStoreTable table(Map<String, String> options) throws Exception {
    return table(dir, options);
  }

  private static FileStoreTable table(Path root, Map<String, String> options) throws Exception {
    TestTables.keyValueTable(root, options);
    FileStoreTable t = TestTables.catalog(root).getTable(Identifier.parse("db.kv"));
    for (int c = 1; c <= 4; c++) {
      try (TableWrite write = t.newWrite("w")) {
        write.write(GenericRow.of(c, "v" + c));
        t.newCommit("w").commit(c, write.prepareCommit());
      }
    }
    return t;
  }

  private Path tableDir() {
    return dir.resolve("db.db/kv");
  }

  /** The delta manifest of snapshot {@code id}, relative to the table directory. */
  private String deltaManifest(long id) throws IOException {
    Snapshot s = table.snapshotManager().get(id);
    return "manifest/" + table.manifestList().read(s.deltaManifestList()).get(0).fileName();
  }

  /** An old file no snapshot names, to see what the run does with what it cannot prove orphan. */
  private Path oldStray() throws IOException {
    Path file = tableDir().resolve("bucket-0/data-stray.parquet");
    Files.write(file, new byte[7]);
    Files.setLastModifiedTime(file, TWO_DAYS_AGO);
    return file;
  }

  /**
   * The table on a store that counts the reads of {@code relative} and fails the n-th (from 1) with
   * a {@link FileNotFoundException} when {@code missing} says so; {@code snapshotGone} makes {@code
   * exists} deny snapshot 2 (an expiration that removed it meanwhile).
   */
  private FileStoreTable through(
      String relative, AtomicInteger reads, IntPredicate missing, boolean snapshotGone)
      throws IOException {
    String watched = tableDir().resolve(relative).toString();
    String snapshot2 = tableDir().resolve("snapshot/snapshot-2").toString();
    FileIO io =
        new CapabilityHidingFileIO(new LocalFileIO()) {
          private boolean justMissed;

          private void read(dev.lockstep.fs.Path path) throws FileNotFoundException {
            justMissed = false;
            if (path.toString().endsWith(watched) && missing.test(reads.incrementAndGet())) {
              justMissed = true;
              throw new FileNotFoundException(path + " (read " + reads.get() + ")");
            }
          }

          @Override
          public SeekableInputStream newInputStream(dev.lockstep.fs.Path path) throws IOException {
            read(path);
            return super.newInputStream(path);
          }

          @Override
          public FileStatus getStatus(dev.lockstep.fs.Path path) throws IOException {
            read(path);
            return super.getStatus(path);
          }

          @Override
          public boolean exists(dev.lockstep.fs.Path path) throws IOException {
            if (snapshotGone && justMissed && path.toString().endsWith(snapshot2)) {
              return false;
            }
            return super.exists(path);
          }
        };
    return new FileSystemCatalog(io, dev.lockstep.fs.Path.of(dir.toString()), Map.of())
        .getTable(Identifier.parse("db.kv"));
  }

  /**
   * A manifest missing for good under a snapshot that is still there: read five times (the first
   * four could be an expiration's doing), then named as missing, the snapshot reported unreadable,
   * and the old unreferenced file kept (the snapshot might name it).
   */
  @Test
  void aManifestMissingUnderASnapshotThatIsThereIsReadFiveTimesThenNamedAndItsFilesKept()
      throws Exception {
    String manifest = deltaManifest(2);
    Files.delete(tableDir().resolve(manifest));
    Path stray = oldStray();
    AtomicInteger reads = new AtomicInteger();
    FileStoreTable cleaned = through(manifest, reads, n -> false, false);

    OrphanReport report = new OrphanFilesCleaner(cleaned, Duration.ZERO, false).clean();

    assertThat(reads).hasValue(5);
    assertThat(report.unreadable())
        .singleElement()
        .asString()
        .startsWith("snapshot 2 (")
        .endsWith(" is missing)");
    assertThat(cleaned.snapshotManager().skippedDamage().entries())
        .containsExactly(
            new SkippedDamage.Entry(
                "manifest", tableDir().resolve(manifest).toString(), "missing"));
    assertThat(report.removed()).isEmpty();
    // The stray and snapshot 2's own data file, which only the unreadable manifest names.
    assertThat(report.keptUnprovable()).isEqualTo(2);
    assertThat(stray).exists();
  }

  /** A manifest missing at the first read only (an expiration's listing lag) is no damage. */
  @Test
  void aManifestMissingAtTheFirstReadOnlyIsReadAgainAndIsNoDamage() throws Exception {
    String manifest = deltaManifest(2);
    Path stray = oldStray();
    AtomicInteger reads = new AtomicInteger();
    FileStoreTable cleaned = through(manifest, reads, n -> n == 1, false);

    OrphanReport report = new OrphanFilesCleaner(cleaned, Duration.ZERO, false).clean();

    assertThat(reads).hasValue(2);
    assertThat(report.unreadable()).isEmpty();
    assertThat(cleaned.snapshotManager().skippedDamage().entries()).isEmpty();
    assertThat(report.removed())
        .extracting(OrphanReport.RemovedFile::path)
        .containsExactly("bucket-0/data-stray.parquet");
    assertThat(stray).doesNotExist();
  }

  /**
   * A damaged snapshot before a manifest that is missing at the first read: the damage is named
   * once in the report and in the skipped damage, however often the run reads the table again.
   */
  @Test
  void aDamagedSnapshotIsReportedOnceAcrossTheRereads() throws Exception {
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of(5, "v5"));
      table.newCommit("w").commit(5, write.prepareCommit());
    }
    String manifest = deltaManifest(4);
    // Snapshot 3 of 5: only orphan removal reads it. The snapshot manager reads (and notes) the
    // first two, to find the first of the history, and the last two, to confirm the head.
    Path snapshot3 = tableDir().resolve("snapshot/snapshot-3");
    Files.write(snapshot3, "{ not json".getBytes());
    AtomicInteger reads = new AtomicInteger();
    FileStoreTable cleaned = through(manifest, reads, n -> n == 1, false);

    OrphanReport report = new OrphanFilesCleaner(cleaned, Duration.ZERO, false).clean();

    assertThat(reads).hasValue(2);
    assertThat(report.unreadable()).singleElement().asString().startsWith("snapshot 3 (");
    assertThat(cleaned.snapshotManager().skippedDamage().entries())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.kind()).isEqualTo("snapshot");
              assertThat(e.file()).isEqualTo(snapshot3.toString());
            });
  }

  /**
   * A manifest that stays missing while its snapshot is gone every time (expirations that keep
   * removing what this run reads): five reads, then an error that says to run it again when
   * expiration is idle; nothing removed.
   */
  @Test
  void snapshotsThatKeepVanishingStopTheRunAfterFiveReadsAndRemoveNothing() throws Exception {
    String manifest = deltaManifest(2);
    Path stray = oldStray();
    AtomicInteger reads = new AtomicInteger();
    FileStoreTable cleaned = through(manifest, reads, n -> true, true);

    assertThatThrownBy(() -> new OrphanFilesCleaner(cleaned, Duration.ZERO, false).clean())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("kept vanishing")
        .hasMessageContaining("run it again when expiration is idle");
    assertThat(reads).hasValue(5);
    assertThat(stray).exists();
  }

  /**
   * A missing manifest list is named whichever role it has for the snapshots that name it: the base
   * list, a prior delta (snapshot 1's delta, which snapshots 2 to 4 carry after snapshot 1 expired)
   * or a changelog list.
   */
  @Test
  void aMissingManifestListIsNamedInEachOfItsRoles() throws Exception {
    Map<String, String> writeOnly = Map.of("write-only", "true");
    assertMissingListIsNamed("base", writeOnly, t -> t.snapshotManager().get(4).baseManifestList());
    assertMissingListIsNamed(
        "delta", writeOnly, t -> t.snapshotManager().get(4).deltaManifestList());
    assertMissingListIsNamed(
        "prior-delta",
        writeOnly,
        t -> {
          new SnapshotExpiration(t, new MaintenanceOptions(3, 3, Duration.ZERO, 100)).expire();
          assertThat(t.snapshotManager().earliestId()).hasValue(2);
          return t.snapshotManager().get(2).priorDeltas().get(0).deltaManifestList();
        });
    assertMissingListIsNamed(
        "changelog",
        Map.of("write-only", "true", "changelog-producer", "input"),
        t -> t.snapshotManager().get(3).changelogManifestList());
  }

  private interface ListToLose {
    String pick(FileStoreTable table) throws Exception;
  }

  private void assertMissingListIsNamed(String name, Map<String, String> options, ListToLose lose)
      throws Exception {
    Path root = dir.resolve(name);
    FileStoreTable t = table(root, options);
    Path list = root.resolve("db.db/kv/manifest").resolve(lose.pick(t));
    Files.delete(list);
    FileStoreTable cleaned = TestTables.catalog(root).getTable(Identifier.parse("db.kv"));

    OrphanReport report = new OrphanFilesCleaner(cleaned, Duration.ZERO, false).clean();

    assertThat(report.unreadable()).as(name).isNotEmpty();
    assertThat(cleaned.snapshotManager().skippedDamage().entries())
        .as(name)
        .containsExactly(new SkippedDamage.Entry("manifest list", list.toString(), "missing"));
    assertThat(report.removed()).as(name).isEmpty();
  }

  /** A manifest that does not parse is named as damaged; the run keeps what it might name. */
  @Test
  void aDamagedManifestIsNamedAndItsSnapshotsFilesKept() throws Exception {
    String manifest = deltaManifest(2);
    Files.write(tableDir().resolve(manifest), "not a manifest".getBytes());
    Path stray = oldStray();
    FileStoreTable cleaned = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));

    OrphanReport report = new OrphanFilesCleaner(cleaned, Duration.ZERO, false).clean();

    assertThat(report.unreadable()).singleElement().asString().startsWith("snapshot 2 (");
    assertThat(cleaned.snapshotManager().skippedDamage().entries())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.kind()).isEqualTo("manifest");
              assertThat(e.file()).isEqualTo(tableDir().resolve(manifest).toString());
              assertThat(e.damage()).startsWith("unparsable");
            });
    assertThat(report.removed()).isEmpty();
    assertThat(stray).exists();
  }
}
