package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.schema.SchemaManager;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, item 1: the bucket count belongs to the stored table. A writer asking for another count
 * is refused before it writes; and every commit, pure level-0 appends included, is checked against
 * the live files of its partitions, so a table whose files have another count (one created before
 * the count was stored) refuses the commit instead of holding a key twice.
 */
class StoredBucketCountTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");
  private static final Schema SCHEMA =
      Schema.newBuilder()
          .column("k", DataType.intType().notNull())
          .column("v", DataType.bigint())
          .primaryKey("k")
          .build();

  private static void write(FileStoreTable table, String user, long identifier, long offset)
      throws IOException {
    try (TableWrite w = table.newWrite(user)) {
      for (int k = 0; k < 20; k++) {
        w.write(GenericRow.of(k, k + offset));
      }
      table.newCommit(user).commit(identifier, w.prepareCommit());
    }
  }

  private static long count(FileStoreTable table) throws IOException {
    return table.newRead().readAll(table.newScan().plan()).size();
  }

  @Test
  void theBucketCountIsStoredAndAWriterWithAnotherIsRefusedBeforeWriting() throws Exception {
    FileSystemCatalog catalog =
        new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of("bucket", "2"));
    FileStoreTable table = catalog.createTable(ID, SCHEMA);
    assertThat(table.schema().options()).containsEntry("bucket", "2");
    write(table, "a", 1, 0);

    // A catalog with another default does not change the stored table.
    FileStoreTable other =
        new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of("bucket", "3"))
            .getTable(ID);
    assertThat(other.options().bucket()).isEqualTo(2);
    write(other, "b", 1, 100);

    FileStoreTable three = table.copyWithOptions(Map.of("bucket", "3"));
    assertThatThrownBy(() -> three.newWrite("c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stored with bucket=2")
        .hasMessageContaining("bucket=3");
    assertThatThrownBy(() -> three.newCommit("c")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> three.newCompactor("c")).isInstanceOf(IllegalArgumentException.class);
    table.copyWithOptions(Map.of("bucket", "2")).newWrite("c").close();

    assertThat(count(table)).isEqualTo(20);
  }

  @Test
  void aPureAppendWithAnotherBucketCountThanTheLiveFilesIsRefused() throws Exception {
    Path path = Path.of(dir.toString()).child("db.db").child("t");
    LocalFileIO io = new LocalFileIO();
    // A table created before the bucket count was stored: no 'bucket' in its schema.
    new SchemaManager(io, path).create(TableSchema.of(0, SCHEMA, System.currentTimeMillis()));
    FileStoreTable two =
        new FileSystemCatalog(io, Path.of(dir.toString()), Map.of("bucket", "2")).getTable(ID);
    assertThat(two.schema().options()).doesNotContainKey("bucket");
    write(two, "a", 1, 0);

    FileStoreTable three =
        new FileSystemCatalog(io, Path.of(dir.toString()), Map.of("bucket", "3")).getTable(ID);
    assertThatThrownBy(() -> write(three, "b", 1, 100))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("written with 2 buckets; this commit uses 3");
    assertThat(two.snapshotManager().latestId()).hasValue(1);
    assertThat(count(two)).isEqualTo(20);
    assertThat(
            two.newRead().readAll(two.newScan().plan()).stream()
                .filter(r -> (Integer) r.get(0) == 7)
                .map(r -> r.get(1))
                .toList())
        .isEqualTo(List.of(7L));
  }

  @Test
  void aDynamicBucketAppendOnFilesOfAFixedCountIsRefusedAndLeavesNoIndexFile() throws Exception {
    Path path = Path.of(dir.toString()).child("db.db").child("t");
    LocalFileIO io = new LocalFileIO();
    // A table created before the bucket count was stored, written with 2 buckets.
    new SchemaManager(io, path).create(TableSchema.of(0, SCHEMA, System.currentTimeMillis()));
    FileStoreTable two =
        new FileSystemCatalog(io, Path.of(dir.toString()), Map.of("bucket", "2")).getTable(ID);
    write(two, "a", 1, 0);
    java.nio.file.Path manifests = dir.resolve("db.db/t/manifest");
    List<String> before;
    try (var files = java.nio.file.Files.list(manifests)) {
      before = files.map(p -> p.getFileName().toString()).sorted().toList();
    }

    // Opened with dynamic buckets: the writer assigns its new keys and the commit writes their
    // index files; the live files' count (2) refuses it.
    FileStoreTable dynamic =
        new FileSystemCatalog(io, Path.of(dir.toString()), Map.of("bucket", "-1")).getTable(ID);
    dev.lockstep.engine.commit.TableCommit commit = dynamic.newCommit("b");
    assertThat(commit.commitUser()).isEqualTo("b");
    try (TableWrite w = dynamic.newWrite("b")) {
      w.write(GenericRow.of(100, 100L));
      List<dev.lockstep.engine.write.CommitMessage> messages = w.prepareCommit();
      assertThat(messages.get(0).indexHashes()).hasSize(1);
      assertThatThrownBy(() -> commit.commit(1, messages))
          .isInstanceOf(CommitFailedException.class)
          .hasMessageContaining("written with 2 buckets; this commit uses -1");
    }
    assertThat(commit.fileConflicts()).isEqualTo(1);
    assertThat(two.snapshotManager().latestId()).hasValue(1);
    try (var files = java.nio.file.Files.list(manifests)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted().toList())
          .as("the commit's index file and manifests are deleted")
          .isEqualTo(before);
    }
    assertThat(count(two)).isEqualTo(20);
  }
}
