package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers of "latest" and "earliest" with snapshot files below the history: expired ids published
 * again (engine README, "Reading the latest snapshot" and "the real window" (d)). The history
 * checker found it (LOCK_PLAIN_WRITES with expiration, seed 7943837166657: "latest 92 after 94";
 * replayed as "latest 55 after 59"): committers that waited for the lock on neighbouring bases
 * published neighbouring expired ids at once, lock-api pointed {@code LATEST} at one of them, and
 * {@code SnapshotManager.latestId()} trusted the hint because the snapshot before it existed, while
 * that one was below the history as well. Built by hand here: history 1..8, 1..6 expired, then late
 * writes put snapshot-4 (built on the first 3) and snapshot-5 (built on the first 4) back, and the
 * hint names 5.
 */
class SnapshotsBelowHistoryTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable table;
  private final Map<Long, Snapshot> firstHolders = new TreeMap<>();

  @BeforeEach
  void historyOf8WithTheFirst6Expired() throws IOException {
    // Write-only: one snapshot per commit (writers that are not also compact the small files).
    table =
        TestTables.appendTable(
            dir, Map.of("snapshot.num-retained.min", "1000", "write-only", "true"));
    for (int c = 1; c <= 8; c++) {
      commit(table, "other", c);
    }
    for (long id = 1; id <= 8; id++) {
      firstHolders.put(id, table.snapshotManager().readUncached(id).orElseThrow());
    }
    // What expiration does: ascending, never the newest.
    for (long id = 1; id <= 6; id++) {
      table.fileIO().delete(table.snapshotManager().log().snapshotPath(id), false);
    }
  }

  /**
   * Late writes of two other commits: snapshot-4 built on the first snapshot 3, snapshot-5 (which
   * holds commit 1 of "late", that never landed in the history) built on the first snapshot 4.
   * Neither links to the other, and the hint names 5.
   */
  private void neighbouringStraysAndAHintOnThem() throws IOException {
    writeSnapshot(stray(firstHolders.get(4L), "late", 7));
    writeSnapshot(stray(firstHolders.get(5L), "late", 1));
    writeHint("5");
  }

  @Test
  void latestIsTheHeadOfTheHistoryWhenTheHintAndItsPredecessorAreBelowIt() throws IOException {
    neighbouringStraysAndAHintOnThem();
    FileStoreTable reader = reopen();
    assertThat(reader.snapshotManager().latestId()).hasValue(8);
    assertThat(reader.snapshotManager().latest().orElseThrow().commitId())
        .isEqualTo(firstHolders.get(8L).commitId());
    assertThat(reader.newRead().readAll(reader.newScan().plan())).hasSize(8);
  }

  @Test
  void earliestIsTheFirstOfTheHistory() throws IOException {
    neighbouringStraysAndAHintOnThem();
    writeEarliestHint("4");
    FileStoreTable reader = reopen();
    assertThat(reader.snapshotManager().earliestId()).hasValue(7);
    assertThat(reader.snapshotManager().belowHistory(7)).containsExactly(4L, 5L);
  }

  /**
   * The stray snapshot-5 holds commit 1 of "late". With the hint on it, the commit's exactly-once
   * check started its scan there and took the commit for landed: acknowledged, and lost.
   */
  @Test
  void aCommitWhoseLateWriteIsBelowTheHistoryStillLands() throws IOException {
    neighbouringStraysAndAHintOnThem();
    FileStoreTable late = reopen();
    CommitResult result = commit(late, "late", 1);
    assertThat(result.dataSnapshotId()).isEqualTo(9);
    FileStoreTable reader = reopen();
    assertThat(reader.snapshotManager().latestId()).hasValue(9);
    List<String> lateRows = new ArrayList<>();
    for (GenericRow row : reader.newRead().readAll(reader.newScan().plan())) {
      if ("late".equals(row.get(0))) {
        lateRows.add(row.get(0) + "/" + row.get(1));
      }
    }
    assertThat(lateRows).containsExactly("late/1");
  }

  /**
   * The narrow case the link check cannot tell: both late writes carry the first holders' own
   * commit ids (a publish retried with the same content after the first copy had expired), so 5
   * links to 4. A reader that has answered 8 never answers 5 afterwards.
   */
  @Test
  void oneReaderNeverGoesBack() throws IOException {
    SnapshotManager snapshots = reopen().snapshotManager();
    assertThat(snapshots.latestId()).hasValue(8);
    writeSnapshot(firstHolders.get(4L));
    writeSnapshot(firstHolders.get(5L));
    writeHint("5");
    assertThat(snapshots.latestId()).hasValue(8);
  }

  /**
   * A listing that ran while the retained snapshots were replaced (commits and expirations during
   * it) saw only the older files below the history ("latest 6 after 144" in the checker, seed
   * 873582343890, with the link check already in place): one reader lists again instead.
   */
  @Test
  void oneReaderListsAgainWhenAListingMissedTheRetainedSnapshots() throws IOException {
    AtomicInteger racingListings = new AtomicInteger();
    FileIO store =
        new CapabilityHidingFileIO(table.fileIO()) {
          @Override
          public List<FileStatus> list(Path directory) throws IOException {
            List<FileStatus> all = super.list(directory);
            if (racingListings.getAndDecrement() <= 0) {
              return all;
            }
            List<FileStatus> older = new ArrayList<>();
            for (FileStatus status : all) {
              if (!status.path().name().matches("snapshot-[78]")) {
                older.add(status);
              }
            }
            return older;
          }
        };
    SnapshotManager snapshots =
        new FileSystemCatalog(store, Path.of(dir.toString()), Map.of())
            .getTable(new Identifier("db", "log"))
            .snapshotManager();
    assertThat(snapshots.latestId()).hasValue(8);
    neighbouringStraysAndAHintOnThem();
    racingListings.set(1);
    assertThat(snapshots.latestId()).hasValue(8);
  }

  @Test
  void expirationAndOrphanRemovalLeaveTheHistoryAndTheStraysAlone() throws IOException {
    neighbouringStraysAndAHintOnThem();
    FileStoreTable maintained = reopen();
    // Orphan removal reads the history 7..8 and keeps what the strays name. It used to read 4..5
    // (the oldest file to the hinted latest) and removed the files of 6..8 as orphans.
    new OrphanFilesCleaner(maintained, Duration.ZERO, false).clean();
    FileStoreTable reader = reopen();
    assertThat(reader.newRead().readAll(reader.newScan().plan())).hasSize(8);
    for (long id : List.of(4L, 5L)) {
      Snapshot stray = reader.snapshotManager().readUncached(id).orElseThrow();
      assertThat(
              reader
                  .fileIO()
                  .exists(reader.path().child("manifest").child(stray.deltaManifestList())))
          .isTrue();
    }
    new SnapshotExpiration(
            reopen(),
            MaintenanceOptions.from(
                Map.of(
                    "snapshot.num-retained.min",
                    "1",
                    "snapshot.num-retained.max",
                    "1",
                    "snapshot.time-retained",
                    "1 ms")))
        .expire();
    assertThat(table.snapshotManager().log().listIds()).containsExactly(4L, 5L, 8L);
    FileStoreTable after = reopen();
    assertThat(after.snapshotManager().latestId()).hasValue(8);
    assertThat(after.snapshotManager().earliestId()).hasValue(8);
    assertThat(after.newRead().readAll(after.newScan().plan())).hasSize(8);
  }

  private FileStoreTable reopen() throws IOException {
    return TestTables.catalog(dir).getTable(new Identifier("db", "log"));
  }

  private static CommitResult commit(FileStoreTable t, String user, long identifier)
      throws IOException {
    List<CommitMessage> messages;
    try (TableWrite write = t.newWrite(user)) {
      write.write(GenericRow.of(user, identifier));
      messages = write.prepareCommit();
    }
    return t.newCommit(user).commit(identifier, messages);
  }

  /** A late write of another commit under {@code first}'s id, built on the same base. */
  private static Snapshot stray(Snapshot first, String user, long identifier) {
    return new Snapshot(
        first.version(),
        first.id(),
        first.schemaId(),
        first.baseManifestList(),
        first.priorDeltas(),
        first.deltaManifestList(),
        user,
        identifier,
        first.commitKind(),
        first.timeMillis(),
        first.totalRecordCount(),
        first.deltaRecordCount(),
        UUID.randomUUID().toString(),
        first.fencing(),
        first.parentCommitId());
  }

  private void writeSnapshot(Snapshot s) throws IOException {
    write(table.snapshotManager().log().snapshotPath(s.id()), SnapshotManager.serialize(s));
  }

  private void writeHint(String text) throws IOException {
    write(
        table.snapshotManager().log().directory().child("LATEST"),
        text.getBytes(StandardCharsets.US_ASCII));
  }

  private void writeEarliestHint(String text) throws IOException {
    write(
        table.snapshotManager().log().directory().child("EARLIEST"),
        text.getBytes(StandardCharsets.US_ASCII));
  }

  private void write(Path path, byte[] bytes) throws IOException {
    FileIO io = table.fileIO();
    try (OutputStream out = io.newOutputStream(path, true)) {
      out.write(bytes);
    }
  }
}
