package dev.lockstep.engine.deletionvectors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.index.DeletionVectorFile;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * Two commits built on one snapshot both add deletion vectors to one data file: the later one loses
 * the race for the snapshot id, and its retry recomputes its vectors on the winner's snapshot, so
 * the file's vector is the union of both (no resurrected row, no lost delete). A compaction that
 * rewrites the file in between makes the retry compute its vectors on the compaction's output
 * instead.
 */
class DeletionVectorConflictTest {

  @TempDir java.nio.file.Path dir;

  private FaultInjectingStore store;
  private FileStoreTable table;

  private void createLoaded() throws IOException {
    store = FaultInjectingStore.wrap(new LocalFileIO());
    FileSystemCatalog catalog = new FileSystemCatalog(store, Path.of(dir.toString()), Map.of());
    table =
        catalog.createTable(
            new Identifier("db", "t"),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .option("deletion-vectors.enabled", "true")
                .option("commit.max-retries", "20")
                .build());
    TableCommit loader = table.newCommit("loader");
    try (TableWrite write = table.newWrite("loader")) {
      for (int k = 0; k < 10; k++) {
        write.write(GenericRow.of(k, "base"));
      }
      loader.commit(1, write.prepareCommit());
    }
  }

  /** Runs {@code other} right before the next snapshot of the commit in {@code body} lands. */
  private void raceOnce(Runnable other, IORunnable body) throws IOException {
    AtomicBoolean raced = new AtomicBoolean();
    AtomicBoolean inside = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().startsWith("snapshot-")
              && !inside.get()
              && raced.compareAndSet(false, true)) {
            inside.set(true);
            try {
              other.run();
            } finally {
              inside.set(false);
            }
          }
        });
    body.run();
    assertThat(raced).as("the race happened").isTrue();
  }

  interface IORunnable {
    void run() throws IOException;
  }

  private static List<CommitMessage> messages(TableWrite write, Object[]... rows)
      throws IOException {
    for (Object[] r : rows) {
      if (r[1] == null) {
        write.write(RowKind.DELETE, GenericRow.of(r[0], null));
      } else {
        write.write(GenericRow.of(r[0], r[1]));
      }
    }
    return write.prepareCommit();
  }

  /** The loaded keys 0..9 = "base" after (key, value or null for a delete) pairs. */
  private static Map<Integer, String> expected(Object... pairs) {
    Map<Integer, String> changes = new java.util.LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      changes.put((Integer) pairs[i], (String) pairs[i + 1]);
    }
    Map<Integer, String> out = new TreeMap<>();
    for (int k = 0; k < 10; k++) {
      out.put(k, "base");
    }
    changes.forEach(
        (k, v) -> {
          if (v == null) {
            out.remove(k);
          } else {
            out.put(k, v);
          }
        });
    return out;
  }

  private Map<Integer, String> readValues() throws IOException {
    Map<Integer, String> out = new TreeMap<>();
    DeletionVectorTables.read(table, null).forEach((k, row) -> out.put(k, (String) row.get(1)));
    return out;
  }

  @Test
  void twoCommitsMarkingOneFileEndWithTheUnionOfTheirVectors() throws Exception {
    createLoaded();
    DataFileMeta base = onlyFile(table.snapshotManager().latest().get());
    TableWrite a = table.newWrite("a");
    TableWrite b = table.newWrite("b");
    // Both built on snapshot 1; both supersede rows of its one file, and both write key 5.
    List<CommitMessage> fromA =
        messages(a, new Object[] {1, "a"}, new Object[] {2, null}, new Object[] {5, "a"});
    List<CommitMessage> fromB =
        messages(b, new Object[] {3, "b"}, new Object[] {4, null}, new Object[] {5, "b"});
    TableCommit commitA = table.newCommit("a");
    TableCommit commitB = table.newCommit("b");
    CommitResult[] resultB = new CommitResult[1];
    raceOnce(
        () -> {
          try {
            commitA.commit(1, fromA);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        () -> resultB[0] = commitB.commit(1, fromB));
    assertThat(resultB[0].retries()).as("b lost the race and retried").isPositive();
    // b committed last: its 5 wins.
    assertThat(readValues())
        .isEqualTo(expected(1, "a", 2, null, 3, "b", 4, null, 5, "b"))
        .isEqualTo(toValues(DeletionVectorTables.mergeRead(table, null)));
    Snapshot latest = table.snapshotManager().latest().get();
    DeletionVectorTables.assertCovered(table, latest);
    RoaringBitmap vector =
        DeletionVectorFile.read(
                table,
                DeletionVectorFile.byBucket(table, latest).get(new BucketId("", 0)).fileName())
            .get(base.fileName());
    // Rows 1..5 of the base file (keys 1..5 at positions 1..5) are superseded by a or b.
    assertThat(vector.toArray()).containsExactly(1, 2, 3, 4, 5);
    a.close();
    b.close();
  }

  @Test
  void aCompactionLandingFirstMakesTheRetryMarkItsOutput() throws Exception {
    createLoaded();
    TableWrite a = table.newWrite("a");
    TableWrite b = table.newWrite("b");
    table.newCommit("a").commit(1, messages(a, new Object[] {1, "a"}, new Object[] {2, null}));
    List<CommitMessage> fromB =
        messages(b, new Object[] {3, "b"}, new Object[] {1, null}, new Object[] {7, "b"});
    TableCompactor compactor = table.newCompactor("compactor");
    TableCommit commitB = table.newCommit("b");
    CommitResult[] resultB = new CommitResult[1];
    raceOnce(
        () -> {
          try {
            assertThat(compactor.compactOnce(true)).isPresent();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        () -> resultB[0] = commitB.commit(1, fromB));
    assertThat(resultB[0].retries()).isPositive();
    assertThat(readValues())
        .isEqualTo(expected(1, null, 2, null, 3, "b", 7, "b"))
        .isEqualTo(toValues(DeletionVectorTables.mergeRead(table, null)));
    DeletionVectorTables.assertCovered(table, table.snapshotManager().latest().get());
    a.close();
    b.close();
  }

  /**
   * A writer still running with the option off (its table object was opened before the option was
   * switched on) wins the race into a bucket that has no vectors yet: the retry's base has other
   * files but the same (absent) vector file, and the retry must compute its vectors on the new
   * files, so the snapshot's vectors cover the whole bucket and the read needs no merge.
   */
  @Test
  void aRetryAfterAWriterWithTheOptionOffWonCoversTheBucketsNewFiles() throws Exception {
    createLoaded();
    FileStoreTable off = table.copyWithOptions(Map.of("deletion-vectors.enabled", "false"));
    try (TableWrite write = off.newWrite("off")) {
      off.newCommit("off").commit(1, messages(write, new Object[] {8, "off"}));
    }
    // The option-off commit dropped the bucket's vectors.
    assertThat(DeletionVectorFile.byBucket(table, table.snapshotManager().latest().get()))
        .isEmpty();
    TableWrite b = table.newWrite("b");
    List<CommitMessage> fromB = messages(b, new Object[] {3, "b"}, new Object[] {9, null});
    TableCommit commitB = table.newCommit("b");
    CommitResult[] resultB = new CommitResult[1];
    raceOnce(
        () -> {
          try (TableWrite write = off.newWrite("off")) {
            off.newCommit("off").commit(2, messages(write, new Object[] {6, "off"}));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        () -> resultB[0] = commitB.commit(1, fromB));
    assertThat(resultB[0].retries()).as("b lost the race and retried").isPositive();
    assertThat(readValues())
        .isEqualTo(expected(8, "off", 6, "off", 3, "b", 9, null))
        .isEqualTo(toValues(DeletionVectorTables.mergeRead(table, null)));
    assertThat(DeletionVectorTables.assertCovered(table, table.snapshotManager().latest().get()))
        .as("rows the vectors delete: the loaded 3, 6, 8, 9 and b's delete of 9 (a retraction)")
        .isEqualTo(5);
    b.close();
  }

  private DataFileMeta onlyFile(Snapshot snapshot) throws IOException {
    var splits = table.newScan().withSnapshot(snapshot.id()).plan().splits();
    assertThat(splits).hasSize(1);
    assertThat(splits.get(0).files()).hasSize(1);
    return splits.get(0).files().get(0);
  }

  private static Map<Integer, String> toValues(Map<Integer, GenericRow> rows) {
    Map<Integer, String> out = new TreeMap<>();
    rows.forEach((k, row) -> out.put(k, (String) row.get(1)));
    return out;
  }
}
