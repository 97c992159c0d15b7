package dev.lockstep.engine;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A table {@code db.t} (k INT, v STRING) that keeps one snapshot and expires the rest after 1 ms,
 * so that a paused commit can see its id expire in one step: for the tests of the commit's real
 * windows.
 */
final class TinyRetention {

  static final Identifier TABLE = new Identifier("db", "t");

  private TinyRetention() {}

  /** Creates the table in {@code warehouse}; the returned object writes through the local store. */
  static FileStoreTable create(Path warehouse) throws IOException {
    return new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of())
        .createTable(
            TABLE,
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .options(
                    Map.of(
                        "snapshot.num-retained.min",
                        "1",
                        "snapshot.num-retained.max",
                        "1",
                        "snapshot.time-retained",
                        "1 ms"))
                .build());
  }

  /** One row ({@code key}, {@code user}) committed as {@code identifier} of {@code user}. */
  static void commit(FileStoreTable table, String user, long identifier, int key)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(key, user));
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  /** The keys a fresh reader of the table sees, duplicates included. */
  static List<Object> keys(Path warehouse) throws IOException {
    FileStoreTable fresh =
        new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of()).getTable(TABLE);
    List<Object> keys = new ArrayList<>();
    for (GenericRow row : fresh.newRead().readAll(fresh.newScan().plan())) {
      keys.add(row.get(0));
    }
    return keys;
  }
}
