package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a {@code lookup} commit's changelog is computed (LookupChangelog.forBase): a retry on a
 * newer base reuses the changelog computed on the first base unless a snapshot in between changed a
 * bucket the commit writes (docs/engine.md, "Changelog and streaming reads"), whether the first
 * base was a snapshot or the empty table; a changelog computed again deletes the superseded file,
 * and a commit that then fails deletes each changelog file it wrote, each once. Two buckets, real
 * local store behind a {@link FaultInjectingStore} that counts the writes and deletes of changelog
 * files; the other writer commits at the exact moment through a second table object.
 */
class LookupChangelogReuseTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "kv");

  /** Writes of changelog files (in bucket directories), in order. */
  private final List<String> written = new ArrayList<>();

  /** Deletes of each changelog file. */
  private final Map<String, AtomicLong> deleted = new ConcurrentHashMap<>();

  private FileSystemCatalog catalog(FileIO io) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private static boolean changelogFile(Path path) {
    return path.parent().name().startsWith("bucket-") && path.name().startsWith("changelog-");
  }

  /** Our table object: its store counts changelog file writes and deletes. */
  private FaultInjectingStore countingStore() {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    io.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          if (changelogFile(path)) {
            synchronized (written) {
              written.add(path.name());
            }
          }
        });
    io.beforeLanding(
        Operation.DELETE,
        (op, path) -> {
          if (changelogFile(path)) {
            deleted.computeIfAbsent(path.name(), n -> new AtomicLong()).incrementAndGet();
          }
        });
    return io;
  }

  private FileStoreTable createTwoBuckets() throws IOException {
    return catalog(new LocalFileIO())
        .createTable(
            ID,
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .option("changelog-producer", "lookup")
                .option("bucket", "2")
                .build());
  }

  private static void commit(FileStoreTable table, String user, long identifier, Object[]... rows)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      for (Object[] r : rows) {
        write.write(GenericRow.of(r[0], r[1]));
      }
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  private static List<CommitMessage> prepare(FileStoreTable table, int key, String value)
      throws IOException {
    try (TableWrite write = table.newWrite("ours")) {
      write.write(GenericRow.of(key, value));
      return write.prepareCommit();
    }
  }

  /** A key of bucket 0 and a key of bucket 1 (nothing committed). */
  private static int[] keysInTwoBuckets(FileStoreTable table) throws IOException {
    int[] found = {-1, -1};
    for (int k = 0; found[0] < 0 || found[1] < 0; k++) {
      List<CommitMessage> m;
      try (TableWrite write = table.newWrite("probe")) {
        write.write(GenericRow.of(k, "probe"));
        m = write.prepareCommit();
      }
      int bucket = m.get(0).bucket();
      if (found[bucket] < 0) {
        found[bucket] = k;
      }
      new TableCommit(table, "probe").abort(1, m);
    }
    return found;
  }

  /** Runs {@code race} once, right before snapshot {@code id} of ours lands. */
  private static AtomicBoolean raceBefore(FaultInjectingStore io, long id, Runnable race) {
    AtomicBoolean raced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-" + id) && raced.compareAndSet(false, true)) {
            race.run();
          }
        });
    return raced;
  }

  private interface IoRunnable {
    void run() throws IOException;
  }

  private static Runnable unchecked(IoRunnable r) {
    return () -> {
      try {
        r.run();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
  }

  /** The changelog rows of snapshot {@code id}, as "kind key value". */
  private static List<String> changelog(FileStoreTable table, long id) throws IOException {
    StreamTableScan stream = table.copyWithOptions(Map.of("scan.snapshot-id", "1")).newStreamScan();
    for (Optional<Changes> c = stream.next(); c.isPresent(); c = stream.next()) {
      if (c.get().snapshotId() == id) {
        List<String> rows = new ArrayList<>();
        for (StreamTableScan.Change change : c.get().rows()) {
          rows.add(
              change.kind().shortString() + " " + change.row().get(0) + " " + change.row().get(1));
        }
        return rows;
      }
    }
    throw new AssertionError("no snapshot " + id + " in the stream");
  }

  /** The changelog files in the table's bucket directories. */
  private List<String> changelogFilesOnDisk() throws IOException {
    try (Stream<java.nio.file.Path> all = Files.walk(dir)) {
      return all.filter(p -> p.getParent().getFileName().toString().startsWith("bucket-"))
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("changelog-"))
          .sorted()
          .toList();
    }
  }

  /**
   * The table is empty at our first attempt; another writer's first snapshot, in the other bucket,
   * takes our id: the retry reuses the changelog computed on the empty table (one changelog file
   * written in all).
   */
  @Test
  void aRaceOnTheEmptyTableLostToAnotherBucketReusesTheChangelog() throws Exception {
    FileStoreTable others = createTwoBuckets();
    int[] keys = keysInTwoBuckets(others);
    int mine = keys[0];
    int theirs = keys[1];
    FaultInjectingStore io = countingStore();
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages = prepare(ours, mine, "c");
    AtomicBoolean raced =
        raceBefore(io, 1, unchecked(() -> commit(others, "others", 1, new Object[] {theirs, "b"})));

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(raced).isTrue();
    assertThat(result.retries()).isEqualTo(1);
    assertThat(result.dataSnapshotId()).isEqualTo(2);
    assertThat(changelog(ours, 2)).containsExactly("+I " + mine + " c");
    assertThat(written).as("computed once, on the empty table").hasSize(1);
    assertThat(deleted).isEmpty();
    assertThat(changelogFilesOnDisk()).hasSize(2); // theirs and ours
  }

  /**
   * Snapshot 1 wrote both buckets; another writer's snapshot 2 writes only the other bucket: the
   * retry reuses the changelog computed on snapshot 1 (one changelog file written in all).
   */
  @Test
  void aRaceLostToAnotherBucketReusesTheChangelogOfTheFirstBase() throws Exception {
    FileStoreTable others = createTwoBuckets();
    int[] keys = keysInTwoBuckets(others);
    int mine = keys[0];
    int theirs = keys[1];
    commit(others, "others", 1, new Object[] {mine, "a"}, new Object[] {theirs, "a"});
    FaultInjectingStore io = countingStore();
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages = prepare(ours, mine, "c");
    AtomicBoolean raced =
        raceBefore(io, 2, unchecked(() -> commit(others, "others", 2, new Object[] {theirs, "b"})));

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(raced).isTrue();
    assertThat(result.retries()).isEqualTo(1);
    assertThat(changelog(ours, 3)).containsExactly("-U " + mine + " a", "+U " + mine + " c");
    assertThat(written).as("computed once, on snapshot 1").hasSize(1);
    assertThat(deleted).isEmpty();
  }

  /**
   * Another writer's snapshot 2 changes our bucket: the changelog is computed again (the first file
   * deleted); then every publish of ours fails before landing: the commit deletes the second file,
   * and each of the two files is deleted exactly once.
   */
  @Test
  void aRecomputedChangelogThenAFailedCommitDeletesEachFileOnce() throws Exception {
    FileStoreTable others = createTwoBuckets();
    int[] keys = keysInTwoBuckets(others);
    int mine = keys[0];
    commit(others, "others", 1, new Object[] {mine, "a"});
    FaultInjectingStore io = countingStore();
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages = prepare(ours, mine, "c");
    AtomicBoolean raced =
        raceBefore(io, 2, unchecked(() -> commit(others, "others", 2, new Object[] {mine, "b"})));
    io.failNextMatching(
        Operation.CREATE, p -> p.name().equals("snapshot-3"), Fault.FAIL_BEFORE_LANDING, 100);

    assertThatThrownBy(() -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(CleanableFailure.class);

    io.clearFaults();
    assertThat(raced).isTrue();
    assertThat(written).as("computed on snapshot 1, then on snapshot 2").hasSize(2);
    assertThat(deleted.keySet()).containsExactlyInAnyOrderElementsOf(written);
    for (String name : written) {
      assertThat(deleted.get(name).get()).as("deletes of %s", name).isEqualTo(1);
    }
    assertThat(changelogFilesOnDisk())
        .as("only the other writer's two changelog files are left")
        .hasSize(2)
        .doesNotContainAnyElementsOf(written);
  }
}
