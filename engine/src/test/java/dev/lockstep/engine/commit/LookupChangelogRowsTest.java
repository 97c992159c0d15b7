package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rows of a {@code lookup} changelog (LookupChangelog.compute): an update of a committed key is
 * {@code -U} with the committed value and {@code +U} with the new one, a new key {@code +I}, a
 * delete of a committed key {@code -D} with the committed value, a delete of a key that does not
 * exist nothing. The committed files looked up are those whose key range overlaps the range of all
 * of the commit's new files of the bucket (several files: flushes), bounds included: a committed
 * file whose last key is the commit's first key, or whose first key is the commit's last key, is
 * read. A stream consumer has only this record of the change, so a wrong row loses an update
 * downstream. Real local store, one bucket, no compaction (the files keep their key ranges).
 */
class LookupChangelogRowsTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable create(String name) throws IOException {
    return new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of())
        .createTable(
            new Identifier("db", name),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .option("changelog-producer", "lookup")
                .option("bucket", "1")
                .option("write-only", "true")
                .build());
  }

  private static void commit(FileStoreTable table, long identifier, int... keys)
      throws IOException {
    try (TableWrite write = table.newWrite("w")) {
      for (int k : keys) {
        write.write(GenericRow.of(k, "a"));
      }
      table.newCommit("w").commit(identifier, write.prepareCommit());
    }
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

  /**
   * Committed files [1, 3] and [20, 21]; the commit writes key 3 and then, in a second file of the
   * same bucket, key 20: its range is [3, 20], which touches the first file at its last key and the
   * second at its first key.
   */
  private static List<CommitMessage> updatesAtTheBounds(FileStoreTable table, boolean lowFirst)
      throws IOException {
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of(lowFirst ? 3 : 20, "b"));
      write.flush();
      write.write(GenericRow.of(lowFirst ? 20 : 3, "b"));
      List<CommitMessage> messages = write.prepareCommit();
      assertThat(messages)
          .singleElement()
          .satisfies(m -> assertThat(m.newFiles()).as("two files, one per flush").hasSize(2));
      return messages;
    }
  }

  @Test
  void updatesOfKeysAtTheBoundsOfCommittedFilesAreUpdatesWithTheCommittedValues() throws Exception {
    for (boolean lowFirst : new boolean[] {true, false}) {
      FileStoreTable table = create(lowFirst ? "low" : "high");
      commit(table, 1, 1, 2, 3);
      commit(table, 2, 20, 21);

      table.newCommit("w").commit(3, updatesAtTheBounds(table, lowFirst));

      assertThat(changelog(table, 3))
          .as("low key's file written %s", lowFirst ? "first" : "second")
          .containsExactlyInAnyOrder("-U 3 a", "+U 3 b", "-U 20 a", "+U 20 b");
      table.close();
    }
  }

  @Test
  void insertsAndDeletesOfCommittedAndUnknownKeys() throws Exception {
    FileStoreTable table = create("kv");
    commit(table, 1, 1, 2, 3);
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of(4, "b")); // new key
      write.write(RowKind.DELETE, GenericRow.of(2, null)); // committed key
      write.write(RowKind.DELETE, GenericRow.of(9, null)); // no such key
      table.newCommit("w").commit(2, write.prepareCommit());
    }

    assertThat(changelog(table, 2)).containsExactlyInAnyOrder("+I 4 b", "-D 2 a");
    table.close();
  }
}
