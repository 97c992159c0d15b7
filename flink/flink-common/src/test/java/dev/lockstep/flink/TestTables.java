package dev.lockstep.flink;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/** Tables of the tests, created and read through the engine directly (not through Flink). */
final class TestTables {

  /** (id BIGINT, v BIGINT) as RowData. */
  static final TypeInformation<RowData> ID_VALUE =
      InternalTypeInfo.of(
          RowType.of(
              new LogicalType[] {new BigIntType(false), new BigIntType()},
              new String[] {"id", "v"}));

  private TestTables() {}

  static String warehouse(java.nio.file.Path dir) {
    return dir.toUri().toString();
  }

  static TableLoader create(
      String warehouse, String name, boolean primaryKey, int buckets, Map<String, String> options)
      throws IOException {
    Identifier id = Identifier.parse(name);
    try (FileIO io = FileIODiscovery.open(Path.of(warehouse), Map.of())) {
      Schema.Builder schema =
          Schema.newBuilder()
              .column("id", DataType.bigint().notNull())
              .column("v", DataType.bigint())
              .option("bucket", String.valueOf(buckets))
              .options(options);
      if (primaryKey) {
        schema.primaryKey("id");
      }
      new FileSystemCatalog(io, Path.of(warehouse), Map.of())
          .createTable(id, schema.build())
          .close();
    }
    return new TableLoader(warehouse, Map.of(), id);
  }

  /** Every retained snapshot, oldest first. */
  static List<dev.lockstep.engine.snapshot.Snapshot> snapshots(TableLoader loader)
      throws IOException {
    List<dev.lockstep.engine.snapshot.Snapshot> out = new java.util.ArrayList<>();
    try (TableLoader.Opened opened = loader.open()) {
      var manager = opened.table().snapshotManager();
      if (manager.latestId().isEmpty()) {
        return out;
      }
      for (long id = manager.earliestId().orElse(1); id <= manager.latestId().getAsLong(); id++) {
        manager.find(id).ifPresent(out::add);
      }
    }
    return out;
  }

  static List<GenericRow> readAll(TableLoader loader) throws IOException {
    try (TableLoader.Opened opened = loader.open()) {
      FileStoreTable table = opened.table();
      if (table.snapshotManager().latestId().isEmpty()) {
        return List.of();
      }
      return table.newRead().readAll(table.newScan().plan());
    }
  }
}
