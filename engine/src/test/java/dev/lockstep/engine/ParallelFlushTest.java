package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
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
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Buckets flush on several threads at the end of a batch; a failed bucket loses nothing. */
class ParallelFlushTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable table(FaultInjectingStore store, String threads) throws IOException {
    return new FileSystemCatalog(store, Path.of(dir.toString()), Map.of())
        .createTable(
            new Identifier("db", "t" + threads),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .option("bucket", "8")
                .option("write.flush-threads", threads)
                .build());
  }

  @Test
  void aBucketWhoseFlushFailedKeepsItsBatchAndTheOthersKeepTheirFiles() throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(store, "4");
    Map<Integer, String> expected = new TreeMap<>();
    try (TableWrite write = table.newWrite("u")) {
      for (int k = 0; k < 4000; k++) {
        write.write(GenericRow.of(k, "v" + k));
        expected.put(k, "v" + k);
      }
      store.failNextMatching(
          Operation.WRITE,
          p -> p.parent().name().equals("bucket-3") && p.name().startsWith("data-"),
          Fault.FAIL_BEFORE_LANDING,
          1);
      assertThatThrownBy(write::prepareCommit).isInstanceOf(IOException.class);
      assertThat(store.injected()).isEqualTo(1);
      List<CommitMessage> messages = write.prepareCommit();
      assertThat(messages)
          .extracting(CommitMessage::bucket)
          .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
      table.newCommit("u").commit(1, messages);
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
  }

  @Test
  void oneThreadAndManyThreadsWriteTheSameTable() throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable serial = table(store, "1");
    FileStoreTable parallel = table(store, "3");
    for (FileStoreTable t : List.of(serial, parallel)) {
      try (TableWrite write = t.newWrite("u")) {
        for (int batch = 1; batch <= 3; batch++) {
          for (int k = 0; k < 3000; k++) {
            write.write(GenericRow.of((k * 31) % 2000, "b" + batch + "-" + k));
          }
          t.newCommit("u").commit(batch, write.prepareCommit());
        }
      }
    }
    assertThat(TestTables.readKeyValues(parallel))
        .isEqualTo(TestTables.readKeyValues(serial))
        .hasSize(2000);
  }

  @Test
  void aFlushThreadCountBelowOneIsRefusedNamingTheOption() {
    assertThatThrownBy(() -> table(FaultInjectingStore.wrap(new LocalFileIO()), "0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'write.flush-threads'")
        .hasMessageContaining("at least 1");
  }
}
