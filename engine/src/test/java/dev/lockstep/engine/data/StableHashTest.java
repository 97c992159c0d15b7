package dev.lockstep.engine.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link RowComparator#stableHash} picks the bucket of every written key: a change to its result
 * moves keys of existing tables to other buckets, where readers and later writes no longer find
 * them. The expected values were computed by the implementation before write-path work on it.
 */
class StableHashTest {

  /** A key row of every column kind (CHAR and VARCHAR hold Strings too), then composite keys. */
  private static final Object[][] KEYS = {
    {0},
    {1},
    {-1},
    {Integer.MAX_VALUE},
    {Integer.MIN_VALUE},
    {123456789},
    {0L},
    {1L},
    {-1L},
    {Long.MAX_VALUE},
    {Long.MIN_VALUE},
    {9_876_543_210L},
    {0.0d},
    {-0.0d},
    {1.5d},
    {Double.NaN},
    {-123.456d},
    {true},
    {false},
    {""},
    {"a"},
    {"key-00000042"},
    {"grüße ✓ 😀"},
    {new byte[0]},
    {new byte[] {1, 2, 3}},
    {new byte[] {(byte) 0xFF, 0, (byte) 0x80}},
    {new BigDecimal("0.00")},
    {new BigDecimal("12345.67")},
    {new BigDecimal("-98765432109876543210.123456")},
    {LocalDate.of(1970, 1, 1)},
    {LocalDate.of(2026, 12, 5)},
    {LocalDate.of(1, 1, 1)},
    {LocalDateTime.of(2026, 12, 5, 23, 59, 1, 123_456_000)},
    {LocalDateTime.of(1969, 7, 20, 20, 17)},
    {(byte) 0},
    {(byte) -128},
    {(byte) 127},
    {(short) 0},
    {(short) -32768},
    {(short) 12345},
    {0.0f},
    {-2.5f},
    {Float.MAX_VALUE},
    {Instant.EPOCH},
    {Instant.ofEpochSecond(1_764_979_200L, 123_456_000)},
    {Instant.ofEpochSecond(-1L)},
    {null},
    {7, "k"},
    {7L, null, LocalDate.of(2026, 1, 2)},
    {"a", new byte[] {9}, new BigDecimal("1.0"), true},
  };

  private static final int[] PINNED = {
    931937945,
    -1115904342,
    -1314638457,
    383225395,
    -1664621331,
    -406124,
    931937945,
    -1115904342,
    931937945,
    -1664621331,
    -1664621331,
    2048027632,
    931937945,
    -1664621331,
    1262068306,
    -36612808,
    1402382259,
    811489668,
    1407452872,
    931937945,
    -169698647,
    -613234212,
    1414408670,
    -1115904342,
    2093267898,
    297698959,
    1130826979,
    1324455136,
    1519778575,
    -2079876926,
    1658264809,
    -1766066726,
    830949719,
    -1134982789,
    931937945,
    1845729319,
    -1484533187,
    931937945,
    1565775913,
    1056988357,
    931937945,
    1513472493,
    -344631142,
    931937945,
    625319236,
    931937945,
    931937945,
    948883311,
    -1025319173,
    -2081373832
  };

  @Test
  void everyKeyKindHashesAsBefore() {
    assertThat(KEYS.length).isEqualTo(PINNED.length);
    for (int i = 0; i < KEYS.length; i++) {
      GenericRow key = GenericRow.of(KEYS[i]);
      assertThat(RowComparator.stableHash(key)).as("key %s", key).isEqualTo(PINNED[i]);
      int[] all = new int[KEYS[i].length];
      for (int c = 0; c < all.length; c++) {
        all[c] = c;
      }
      assertThat(RowComparator.stableHash(key, all)).as("key %s", key).isEqualTo(PINNED[i]);
    }
  }

  /** The hash of the key columns in place equals the hash of the projected key row. */
  @Test
  void keyColumnsHashAsTheProjectedKey() {
    Random random = new Random(20);
    for (int n = 0; n < 2_000; n++) {
      Object[] values = new Object[6];
      for (int c = 0; c < values.length; c++) {
        values[c] = KEYS[random.nextInt(KEYS.length)][0];
      }
      GenericRow row = GenericRow.of(values);
      int[] key = new int[1 + random.nextInt(4)];
      for (int k = 0; k < key.length; k++) {
        key[k] = random.nextInt(values.length);
      }
      assertThat(RowComparator.stableHash(row, key))
          .isEqualTo(RowComparator.stableHash(row.project(key)));
    }
  }
}
