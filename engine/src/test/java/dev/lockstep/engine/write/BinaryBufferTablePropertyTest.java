package dev.lockstep.engine.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A primary-key table whose rows pass through the binary write buffer: a column of every type, a
 * key of (a column of a random type, an INT), a small {@code write-buffer-size} so that flushes
 * happen every few rows, several commits. Random upserts ({@code +I}, {@code +U}) of few keys, so
 * that keys repeat within a buffer; without {@code sequence.field} also retractions ({@code -D},
 * {@code -U}), the later write of a key winning; with {@code sequence.field} on a nullable BIGINT
 * the row with the greatest sequence value wins (NULL smallest, the later of equals), retractions
 * left out as in {@code SequenceFieldPropertyTest}. After each commit the table equals the model,
 * every value equal.
 */
class BinaryBufferTablePropertyTest {

  /** Key types for the first key column, with a small domain of values each. */
  private static final List<DataType> KEY_TYPES =
      List.of(
          DataType.intType(),
          DataType.bigint(),
          DataType.string(),
          DataType.date(),
          DataType.tinyint(),
          DataType.smallint(),
          DataType.varchar(6),
          DataType.decimal(10, 2),
          DataType.timestamp(),
          DataType.floatType());

  @Property(tries = 30)
  void theTableHoldsTheWinningRowOfEveryKey(
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 9) int keyType,
      @ForAll boolean sequenceField)
      throws Exception {
    TestTables.inTempDirectory(
        "lockstep-binbuf", dir -> run(dir, new Random(seed), keyType, sequenceField));
  }

  private static void run(Path dir, Random random, int keyType, boolean sequenceField)
      throws Exception {
    Schema.Builder schema =
        Schema.newBuilder()
            .column("k", KEY_TYPES.get(keyType))
            .column("id", DataType.intType())
            .column("seq", DataType.bigint())
            .column("i", DataType.intType())
            .column("l", DataType.bigint())
            .column("d", DataType.doubleType())
            .column("b", DataType.booleanType())
            .column("s", DataType.string())
            .column("y", DataType.bytes())
            .column("dec", DataType.decimal(10, 2))
            .column("wide", DataType.decimal(30, 3))
            .column("dt", DataType.date())
            .column("ts", DataType.timestamp())
            .column("t", DataType.tinyint())
            .column("sm", DataType.smallint())
            .column("f", DataType.floatType())
            .column("c", DataType.charType(3))
            .column("vc", DataType.varchar(6))
            .column("ltz", DataType.timestampLtz(6))
            .primaryKey("k", "id")
            .option("bucket", "2")
            .option("write-buffer-size", "2 kb")
            .option("num-sorted-run.compaction-trigger", "3");
    if (sequenceField) {
      schema.option("sequence.field", "seq");
    }
    FileStoreTable table =
        TestTables.catalog(dir).createTable(new Identifier("db", "t"), schema.build());
    // Key (k, id) -> the winning row, or null after a retraction.
    TreeMap<GenericRow, GenericRow> model = new TreeMap<>(RowComparator.INSTANCE);
    try (TableWrite write = table.newWrite("u")) {
      for (int commit = 1; commit <= 4; commit++) {
        int rows = random.nextInt(120);
        for (int r = 0; r < rows; r++) {
          GenericRow row = row(random, keyType);
          GenericRow key = GenericRow.of(row.get(0), row.get(1));
          boolean retract = !sequenceField && random.nextInt(5) == 0;
          RowKind kind =
              retract
                  ? (random.nextBoolean() ? RowKind.DELETE : RowKind.UPDATE_BEFORE)
                  : (random.nextBoolean() ? RowKind.INSERT : RowKind.UPDATE_AFTER);
          write.write(kind, row);
          if (retract) {
            model.put(key, null);
          } else if (!sequenceField || wins(row, model.get(key))) {
            model.put(key, row);
          }
        }
        table.newCommit("u").commit(commit, write.prepareCommit());
        List<GenericRow> expected = new ArrayList<>();
        for (GenericRow row : model.values()) {
          if (row != null) {
            expected.add(row);
          }
        }
        List<GenericRow> read = table.newRead().readAll(table.newScan().plan());
        read.sort((a, b) -> RowComparator.compare(a, b, new int[] {0, 1}));
        assertThat(read).as("after commit %d", commit).containsExactlyElementsOf(expected);
      }
    }
  }

  /** Whether {@code row} replaces {@code current} by its sequence value (NULL smallest). */
  private static boolean wins(GenericRow row, GenericRow current) {
    if (current == null) {
      return true;
    }
    Long now = (Long) row.get(2);
    Long was = (Long) current.get(2);
    return was == null || (now != null && now >= was);
  }

  private static GenericRow row(Random random, int keyType) {
    int small = random.nextInt(5) - 2;
    Object key =
        switch (keyType) {
          case 0 -> small;
          case 1 -> (long) small * 1_000_000_007L;
          case 2 -> pick(random, "", "abab", "ababx", "abac", "é日", "ab\uD83D\uDE00", "\uE000");
          case 3 -> LocalDate.ofEpochDay(small * 400L);
          case 4 -> (byte) small;
          case 5 -> (short) (small * 1000);
          case 6 -> pick(random, "", "abcd", "abcde", "abce", "日本語");
          case 7 -> BigDecimal.valueOf(small * 12345L, 2);
          case 8 -> LocalDateTime.of(2024, 5, 1, 10, 0).plusNanos(small * 1000L);
          case 9 -> pick(random, -0.0f, 0.0f, -1.5f, Float.NaN);
          default -> throw new IllegalArgumentException("key type " + keyType);
        };
    Object[] values = {
      key,
      random.nextInt(3),
      random.nextInt(6) == 0 ? null : (long) random.nextInt(4),
      nullable(random, random.nextInt()),
      nullable(random, random.nextLong()),
      nullable(random, pick(random, -0.0, 0.0, Double.NaN, 1.5, -1e300)),
      nullable(random, random.nextBoolean()),
      nullable(random, pick(random, "", "x", "日本語", "a\uD83D\uDE00b", "latin1 é".repeat(3))),
      nullable(random, new byte[] {(byte) random.nextInt(), 0, (byte) 0xFF}),
      nullable(random, BigDecimal.valueOf(random.nextInt(), 2)),
      nullable(random, new BigDecimal("-123456789012345678901234567.891")),
      nullable(random, LocalDate.of(2024, 2, 29).plusDays(random.nextInt(1000) - 500)),
      nullable(random, LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000)),
      nullable(random, (byte) random.nextInt()),
      nullable(random, (short) random.nextInt()),
      nullable(random, pick(random, 1.25f, -0.0f, Float.NaN, Float.MAX_VALUE)),
      nullable(random, pick(random, "abc", "é日x", "   ")),
      nullable(random, pick(random, "", "vc", "日本語日本語")),
      nullable(random, Instant.ofEpochSecond(1_700_000_000L + random.nextInt(100), 123_456_000L))
    };
    return GenericRow.wrap(values);
  }

  private static Object nullable(Random random, Object value) {
    return random.nextInt(8) == 0 ? null : value;
  }

  @SafeVarargs
  private static <T> T pick(Random random, T... choices) {
    return choices[random.nextInt(choices.length)];
  }
}
