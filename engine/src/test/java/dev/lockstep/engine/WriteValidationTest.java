package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TableWrite#write} checks each value as {@link DataType#validate} does (it skips the call
 * for values that cannot fail it): every column kind takes its values and refuses others with
 * validate's message, in primary-key and append tables.
 */
class WriteValidationTest {

  @TempDir Path dir;

  private static final DataType[] TYPES = {
    DataType.intType().notNull(),
    DataType.bigint(),
    DataType.doubleType(),
    DataType.booleanType(),
    DataType.string().notNull(),
    DataType.bytes(),
    DataType.decimal(5, 2),
    DataType.date(),
    DataType.timestamp(),
    DataType.tinyint(),
    DataType.smallint(),
    DataType.floatType(),
    DataType.charType(3),
    DataType.varchar(4),
    DataType.timestampLtz(3)
  };

  private static final Object[] GOOD = {
    1,
    2L,
    3.0,
    true,
    "s",
    new byte[] {1},
    new BigDecimal("123.45"),
    LocalDate.of(2026, 12, 5),
    LocalDateTime.of(2026, 12, 5, 23, 0),
    (byte) 4,
    (short) 5,
    6f,
    "abc",
    "wxyz",
    Instant.ofEpochMilli(1_764_979_200_123L)
  };

  /** Per column, values its type refuses. */
  private static final Object[][] BAD = {
    {null, 1L, "1"},
    {1, "2"},
    {3f},
    {"true"},
    {null, 's', new byte[] {1}},
    {"b"},
    {new BigDecimal("1.5"), new BigDecimal("1234.56"), 1.5},
    {LocalDateTime.of(2026, 12, 5, 0, 0)},
    {LocalDate.of(2026, 12, 5)},
    {4, (short) 4},
    {5},
    {6.0},
    {"ab", "abcd", 1},
    {"vwxyz", 'v', new BigInteger("1")},
    {Instant.ofEpochSecond(0, 1_000), 1L}
  };

  @Test
  void everyColumnKindIsCheckedAsValidateChecksIt() throws Exception {
    for (boolean primaryKey : new boolean[] {true, false}) {
      Schema.Builder schema = Schema.newBuilder();
      for (int c = 0; c < TYPES.length; c++) {
        schema.column("c" + c, TYPES[c]);
      }
      if (primaryKey) {
        schema.primaryKey("c0");
      }
      FileStoreTable table =
          TestTables.catalog(dir)
              .createTable(new Identifier("db", primaryKey ? "pk" : "append"), schema.build());
      try (TableWrite write = table.newWrite("u")) {
        write.write(GenericRow.of(GOOD));
        for (int c = 0; c < TYPES.length; c++) {
          if (TYPES[c].nullable()) {
            Object[] values = GOOD.clone();
            values[c] = null;
            write.write(GenericRow.of(values));
          }
        }
        for (int c = 0; c < TYPES.length; c++) {
          for (Object bad : BAD[c]) {
            Object[] values = GOOD.clone();
            values[c] = bad;
            String column = "c" + c;
            DataType type = TYPES[c];
            assertThatThrownBy(() -> type.validate(column, bad))
                .as("%s refuses %s", type, bad)
                .isInstanceOf(IllegalArgumentException.class);
            String expected = "";
            try {
              type.validate(column, bad);
            } catch (IllegalArgumentException e) {
              expected = e.getMessage();
            }
            assertThatThrownBy(() -> write.write(GenericRow.of(values)))
                .as("%s in %s", bad, type)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(expected);
          }
        }
        assertThat(write.prepareCommit()).isNotEmpty();
      }
    }
  }
}
