package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read that fails in the middle of a {@code lookup} changelog's merge, after changelog rows were
 * written (LookupChangelog.compute): the commit fails, publishes nothing, and leaves no changelog
 * file behind. The commit's own data file is an Avro file of several blocks whose last block is
 * damaged (its sync marker overwritten) before the commit: the merge reads the first blocks, and
 * the changelog writer has started its file, before the damaged block fails the read. Real local
 * store.
 */
class LookupChangelogReadFailureTest {

  @TempDir java.nio.file.Path dir;

  @Test
  void aReadFailingAfterChangelogRowsWereWrittenLeavesNoChangelogFile() throws Exception {
    FileStoreTable table =
        new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of())
            .createTable(
                new Identifier("db", "kv"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .option("bucket", "1")
                    .option("write-only", "true")
                    .option("file.format", "avro")
                    .option("file.compression", "none") // blocks of 16 KiB on disk
                    .option("changelog-producer", "lookup")
                    .build());
    List<CommitMessage> messages;
    try (TableWrite write = table.newWrite("w")) {
      for (int k = 0; k < 5000; k++) {
        write.write(GenericRow.of(k, "value-" + k));
      }
      messages = write.prepareCommit();
    }
    assertThat(messages).hasSize(1);
    assertThat(messages.get(0).newFiles()).hasSize(1);
    java.nio.file.Path data =
        LocalFileIO.toLocal(
            table
                .bucketPath(messages.get(0).partition(), messages.get(0).bucket())
                .child(messages.get(0).newFiles().get(0).fileName()));
    assertThat(Files.size(data)).as("several Avro blocks of 16 KiB").isGreaterThan(40 * 1024);
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.seek(f.length() - 16); // the last block's sync marker
      f.write(new byte[16]);
    }

    try (TableCommit commit = table.newCommit("w")) {
      assertThatThrownBy(() -> commit.commit(1, messages)).isInstanceOf(Exception.class);
    }

    assertThat(table.snapshotManager().latestId()).as("nothing published").isEmpty();
    try (Stream<java.nio.file.Path> files = Files.list(data.getParent())) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("no changelog file is left; the data file is the caller's")
          .containsExactly(data.getFileName().toString());
    }
  }
}
