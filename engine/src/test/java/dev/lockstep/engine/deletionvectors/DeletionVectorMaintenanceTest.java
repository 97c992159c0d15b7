package dev.lockstep.engine.deletionvectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.index.DeletionVectorFile;
import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.maintenance.TableCheck;
import dev.lockstep.engine.maintenance.TagManager;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deletion-vector files are kept and cleaned like data files: expiration deletes the ones only
 * expired snapshots name and keeps those of retained snapshots and tags; orphan removal deletes a
 * vector file no snapshot names and keeps the rest; the table check verifies them; switching the
 * option off drops the vectors of the buckets a commit changes, so no stale vector is ever read.
 */
class DeletionVectorMaintenanceTest {

  @TempDir Path dir;

  private FileStoreTable table(Map<String, String> extra) throws Exception {
    Map<String, String> options = new java.util.HashMap<>(extra);
    options.put("deletion-vectors.enabled", "true");
    options.put("snapshot.num-retained.min", "1000");
    options.put("snapshot.num-retained.max", "1000");
    return DeletionVectorTables.create(dir, "t", options);
  }

  private static void upsert(FileStoreTable table, long identifier, int from, int to, String v)
      throws Exception {
    try (TableWrite write = table.newWrite("u")) {
      for (int k = from; k < to; k++) {
        write.write(GenericRow.of(k, v, 0L));
      }
      write.write(RowKind.DELETE, GenericRow.of(to, null, 0L));
      table.newCommit("u").commit(identifier, write.prepareCommit());
    }
  }

  private Set<String> vectorFiles() throws Exception {
    try (Stream<Path> files = Files.list(dir.resolve("db.db/t/manifest"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".dv"))
          .collect(Collectors.toSet());
    }
  }

  private Set<String> namedBy(FileStoreTable table, Snapshot s) throws Exception {
    Set<String> out = new HashSet<>();
    for (IndexFileMeta f : table.indexManifest().read(s.indexManifest())) {
      if (f.indexType().equals(IndexFileMeta.DELETION_VECTORS)) {
        out.add(f.fileName());
      }
    }
    return out;
  }

  @Test
  void expirationKeepsTheVectorsOfRetainedSnapshotsAndTagsAndDeletesTheRest() throws Exception {
    FileStoreTable table = table(Map.of());
    for (int c = 1; c <= 12; c++) {
      upsert(table, c, 0, 20 + c, "v" + c);
    }
    new TagManager(table).create("t5", 5);
    Snapshot tagged = table.snapshotManager().get(5);
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    Map<Integer, GenericRow> before = DeletionVectorTables.read(table, null);
    assertThat(DeletionVectorTables.assertCovered(table, latest)).isPositive();
    assertThat(vectorFiles()).hasSizeGreaterThan(2);

    new SnapshotExpiration(table, new MaintenanceOptions(1, 1, Duration.ZERO, 1000)).expire();

    Set<String> expected = new HashSet<>(namedBy(table, latest));
    expected.addAll(namedBy(table, tagged));
    assertThat(vectorFiles()).isEqualTo(expected);
    assertThat(DeletionVectorTables.read(table, null)).isEqualTo(before);
    assertThat(new TableCheck(table, true).run().problems()).isEmpty();
    // The tag still reads its snapshot (merged: its snapshot file expired).
    assertThat(
            table.newRead().readAll(table.newScan().withSnapshot(tagged).plan()).stream()
                .map(r -> r.get(1))
                .distinct()
                .toList())
        .containsExactly("v5");
  }

  @Test
  void orphanRemovalDeletesUnnamedVectorFilesAndKeepsNamedOnes() throws Exception {
    FileStoreTable table = table(Map.of());
    for (int c = 1; c <= 4; c++) {
      upsert(table, c, 0, 10, "v" + c);
    }
    Set<String> named = new HashSet<>();
    for (long id = 1; id <= 4; id++) {
      named.addAll(namedBy(table, table.snapshotManager().get(id)));
    }
    assertThat(vectorFiles()).isEqualTo(named);
    Path stray = dir.resolve("db.db/t/manifest/index-stray.dv");
    try (OutputStream out = Files.newOutputStream(stray)) {
      out.write(new byte[] {1, 2, 3});
    }
    // Older than the run: a file modified in the cleaner's own millisecond counts as too young (a
    // warm JVM got there within that millisecond and failed the test under PIT, stop 36).
    Files.setLastModifiedTime(
        stray, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    var report = new OrphanFilesCleaner(table, Duration.ZERO, false).clean();
    assertThat(report.removed()).extracting(f -> f.path()).contains("manifest/index-stray.dv");
    assertThat(vectorFiles()).isEqualTo(named);
    assertThat(DeletionVectorTables.read(table, null))
        .isEqualTo(DeletionVectorTables.mergeRead(table, null))
        .hasSize(10);
  }

  @Test
  void aDamagedOrMissingVectorFileIsReportedByTheCheck() throws Exception {
    FileStoreTable table = table(Map.of());
    upsert(table, 1, 0, 10, "a");
    upsert(table, 2, 0, 5, "b");
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    String victim = namedBy(table, latest).iterator().next();
    Path path = dir.resolve("db.db/t/manifest/" + victim);
    byte[] bytes = Files.readAllBytes(path);
    bytes[bytes.length / 2] ^= 0x55;
    Files.write(path, bytes);
    assertThatThrownBy(() -> DeletionVectorFile.read(table, victim))
        .hasMessageContaining(victim)
        .hasMessageContaining("damaged");
    Files.delete(path);
    List<TableCheck.Problem> problems = new TableCheck(table, false).run().problems();
    assertThat(problems).extracting(TableCheck.Problem::kind).contains("index file");
  }

  @Test
  void switchingTheOptionOffDropsTheVectorsOfChangedBucketsAndOnAgainRecomputesThem()
      throws Exception {
    FileStoreTable table = table(Map.of("bucket", "2"));
    upsert(table, 1, 0, 40, "a");
    upsert(table, 2, 0, 20, "b");
    var vectorsBefore =
        DeletionVectorFile.byBucket(table, table.snapshotManager().latest().orElseThrow());
    assertThat(vectorsBefore).hasSize(2);
    FileStoreTable off = table.copyWithOptions(Map.of("deletion-vectors.enabled", "false"));
    try (TableWrite write = off.newWrite("off")) {
      write.write(GenericRow.of(3, "off", 0L)); // one bucket only
      off.newCommit("off").commit(1, write.prepareCommit());
    }
    Snapshot afterOff = table.snapshotManager().latest().orElseThrow();
    assertThat(DeletionVectorFile.byBucket(table, afterOff)).hasSize(1);
    // The one left is the other bucket's, as it was; the changed bucket's is gone.
    BucketId changed = null;
    for (var split : table.newScan().plan().splits()) {
      if (split.files().stream().anyMatch(f -> f.commitSnapshot() == afterOff.id())) {
        changed = new BucketId(split.partition(), split.bucket());
      }
    }
    assertThat(changed).isNotNull();
    BucketId other = new BucketId("", 1 - changed.bucket());
    assertThat(DeletionVectorFile.byBucket(table, afterOff))
        .containsOnlyKeys(other)
        .containsEntry(other, vectorsBefore.get(other));
    assertThat(DeletionVectorTables.read(table, null))
        .isEqualTo(DeletionVectorTables.mergeRead(table, null));
    assertThat(DeletionVectorTables.read(table, null).get(3).get(1)).isEqualTo("off");
    upsert(table, 3, 0, 40, "c");
    DeletionVectorTables.assertCovered(table, table.snapshotManager().latest().orElseThrow());
    assertThat(DeletionVectorTables.read(table, null))
        .isEqualTo(DeletionVectorTables.mergeRead(table, null))
        .hasSize(40);
  }

  @Test
  void aRollbackAndAnOverwriteKeepTheVectorsExact() throws Exception {
    FileStoreTable table = table(Map.of("bucket", "2"));
    for (int c = 1; c <= 5; c++) {
      upsert(table, c, 0, 10 * c, "v" + c);
    }
    Map<Integer, GenericRow> atTwo = DeletionVectorTables.read(table, 2L);
    new dev.lockstep.engine.operation.Rollback(table).run(table.snapshotManager().get(2));
    Snapshot rolledBack = table.snapshotManager().latest().orElseThrow();
    DeletionVectorTables.assertCovered(table, rolledBack);
    assertThat(DeletionVectorTables.read(table, null))
        .isEqualTo(DeletionVectorTables.mergeRead(table, null))
        .isEqualTo(atTwo);
    upsert(table, 6, 5, 15, "after");
    try (TableWrite write = table.newWrite("o")) {
      write.write(GenericRow.of(1, "only", 0L));
      write.write(GenericRow.of(2, "only", 0L));
      table.newCommit("o").overwrite(1, p -> true, write.prepareCommit());
    }
    DeletionVectorTables.assertCovered(table, table.snapshotManager().latest().orElseThrow());
    assertThat(DeletionVectorTables.read(table, null))
        .isEqualTo(DeletionVectorTables.mergeRead(table, null))
        .hasSize(2);
  }

  @Test
  void anAppendTableRefusesTheOption() {
    assertThatThrownBy(
            () -> TestTables.appendTable(dir, Map.of("deletion-vectors.enabled", "true")))
        .hasMessageContaining("append table")
        .hasMessageContaining("deletion-vectors.enabled");
  }
}
