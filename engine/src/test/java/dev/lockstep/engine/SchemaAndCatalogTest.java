package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.catalog.TableExistsException;
import dev.lockstep.engine.catalog.TableNotFoundException;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.schema.SchemaManager;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.DataTypeRoot;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchemaAndCatalogTest {

  @TempDir Path dir;

  @Test
  void typesPrintAndParseBack() {
    for (String text :
        new String[] {
          "INT",
          "BIGINT NOT NULL",
          "DOUBLE",
          "BOOLEAN",
          "STRING",
          "BYTES",
          "DECIMAL(10, 2)",
          "DECIMAL(38, 0) NOT NULL",
          "DATE",
          "TIMESTAMP",
          "TINYINT",
          "SMALLINT NOT NULL",
          "FLOAT",
          "CHAR(3)",
          "VARCHAR(20) NOT NULL",
          "TIMESTAMP_LTZ(3)"
        }) {
      assertThat(DataType.parse(text).toString()).isEqualTo(text);
    }
    assertThat(DataType.parse("integer not null")).isEqualTo(DataType.intType().notNull());
    assertThat(DataType.parse("decimal").root()).isEqualTo(DataTypeRoot.DECIMAL);
    assertThatThrownBy(() -> DataType.parse("ARRAY<INT>"))
        .hasMessageContaining("Unknown column type 'ARRAY<INT>'")
        .hasMessageContaining("DECIMAL");
    assertThatThrownBy(() -> DataType.decimal(40, 2)).hasMessageContaining("precision must be");
  }

  @Test
  void valuesAreCheckedAgainstTheirColumnType() {
    assertThatThrownBy(() -> DataType.intType().validate("k", "1"))
        .hasMessageContaining("Column 'k' is INT and takes a Integer, not a String");
    assertThatThrownBy(() -> DataType.string().notNull().validate("v", null))
        .hasMessageContaining("Column 'v' is STRING NOT NULL but got null");
    assertThatThrownBy(() -> DataType.decimal(5, 2).validate("d", new java.math.BigDecimal("1.5")))
        .hasMessageContaining("setScale(2)");
  }

  @Test
  void createLoadListAndDropTables() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Identifier id = new Identifier("sales", "orders");
    Schema schema =
        Schema.newBuilder()
            .column("id", DataType.bigint())
            .column("day", DataType.date())
            .column("amount", DataType.decimal(12, 2))
            .primaryKey("day", "id")
            .partitionKeys("day")
            .option("bucket", "4")
            .build();
    FileStoreTable created = catalog.createTable(id, schema);
    assertThat(created.path().toString()).endsWith("sales.db/orders");
    assertThatThrownBy(() -> catalog.createTable(id, schema))
        .isInstanceOf(TableExistsException.class);

    FileStoreTable loaded = catalog.getTable(id);
    assertThat(loaded.schema().primaryKeys()).containsExactly("day", "id");
    assertThat(loaded.schema().fields().get(0).type()).isEqualTo(DataType.bigint().notNull());
    assertThat(loaded.options().bucket()).isEqualTo(4);
    assertThat(catalog.listTables("sales")).containsExactly("orders");

    catalog.dropTable(id);
    assertThat(catalog.tableExists(id)).isFalse();
    assertThatThrownBy(() -> catalog.getTable(id)).isInstanceOf(TableNotFoundException.class);
  }

  @Test
  void schemaVersionsAreCreatedOnceAndReadBack() throws Exception {
    SchemaManager schemas =
        new SchemaManager(new LocalFileIO(), dev.lockstep.fs.Path.of(dir.toString()));
    Schema schema = Schema.newBuilder().column("a", DataType.timestamp()).build();
    schemas.create(TableSchema.of(0, schema, 1));
    schemas.create(TableSchema.of(1, schema, 2));
    assertThatThrownBy(() -> schemas.create(TableSchema.of(1, schema, 3)))
        .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    assertThat(schemas.listIds()).containsExactly(0L, 1L);
    assertThat(schemas.latest().orElseThrow().timeMillis()).isEqualTo(2);
  }

  @Test
  void invalidSchemasAndOptionsAreRefusedWithTheFix() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Identifier id = new Identifier("db", "t");
    assertThatThrownBy(
            () ->
                catalog.createTable(
                    id,
                    Schema.newBuilder()
                        .column("k", DataType.intType())
                        .column("p", DataType.string())
                        .primaryKey("k")
                        .partitionKeys("p")
                        .build()))
        .hasMessageContaining("must contain every partition key");
    assertThatThrownBy(
            () ->
                catalog.createTable(
                    id,
                    Schema.newBuilder().column("k", DataType.intType()).primaryKey("x").build()))
        .hasMessageContaining("No column 'x'");
    assertThatThrownBy(
            () ->
                catalog.createTable(
                    id,
                    Schema.newBuilder()
                        .column("k", DataType.intType())
                        .options(Map.of("bucket", "0"))
                        .build()))
        .hasMessageContaining("Option 'bucket' is 0");
    assertThatThrownBy(
            () ->
                catalog.createTable(
                    id,
                    Schema.newBuilder()
                        .column("k", DataType.intType())
                        .options(Map.of("merge-engine", "aggregation"))
                        .build()))
        .hasMessageContaining("only 'deduplicate'");
    assertThatThrownBy(() -> Identifier.parse("nodot")).hasMessageContaining("database.table");
  }
}
