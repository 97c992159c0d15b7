package dev.lockstep.engine.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link BinaryWriteBuffer} against a model (the rows as written, compared with {@link
 * RowComparator}): a column of every type, nullable, values from small domains so that keys repeat
 * and prefixes tie (strings sharing their first four characters, beyond Latin-1, surrogates; bytes
 * sharing their first eight), now and then a row larger than a page. Every row comes back equal,
 * value by value and class by class, with its kind; the sorted positions are the stable order by
 * key; equal keys and comparisons of any columns (sequence fields, nulls first) agree with the row
 * comparator; after a clear the reused pages hold a new batch as well.
 */
class BinaryWriteBufferTest {

  /** One column of each type, all nullable; the keys are chosen among them. */
  static final List<DataType> TYPES =
      List.of(
          DataType.intType(),
          DataType.bigint(),
          DataType.doubleType(),
          DataType.booleanType(),
          DataType.string(),
          DataType.bytes(),
          DataType.decimal(10, 2),
          DataType.decimal(30, 3),
          DataType.date(),
          DataType.timestamp(),
          DataType.tinyint(),
          DataType.smallint(),
          DataType.floatType(),
          DataType.charType(3),
          DataType.varchar(6),
          DataType.timestampLtz(6));

  @Property(tries = 200)
  void rowsRoundTripAndSortByKeyStably(
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 15) int firstKey,
      @ForAll @IntRange(min = -1, max = 15) int secondKey,
      @ForAll @IntRange(min = 0, max = 400) int rows) {
    int[] keys =
        secondKey < 0 || secondKey == firstKey
            ? new int[] {firstKey}
            : new int[] {firstKey, secondKey};
    List<DataField> fields = new ArrayList<>();
    for (int i = 0; i < TYPES.size(); i++) {
      fields.add(new DataField(i, "c" + i, TYPES.get(i)));
    }
    RowType rowType = new RowType(fields);
    WriteBufferPool pool = new WriteBufferPool(1 << 20);
    BinaryWriteBuffer buffer = new BinaryWriteBuffer(rowType, keys, pool);
    Random random = new Random(seed);
    for (int batch = 0; batch < 2; batch++) {
      List<GenericRow> model = new ArrayList<>();
      List<RowKind> kinds = new ArrayList<>();
      for (int r = 0; r < rows; r++) {
        GenericRow row = row(random, keys);
        RowKind kind = RowKind.values()[random.nextInt(RowKind.values().length)];
        assertThat(buffer.add(row, kind)).isGreaterThan(BinaryWriteBuffer.INDEX_BYTES);
        model.add(row);
        kinds.add(kind);
      }
      check(buffer, model, kinds, keys, random);
      buffer.clear();
      assertThat(buffer.size()).isZero();
    }
  }

  private static void check(
      BinaryWriteBuffer buffer,
      List<GenericRow> model,
      List<RowKind> kinds,
      int[] keys,
      Random random) {
    int n = model.size();
    assertThat(buffer.size()).isEqualTo(n);
    for (int i = 0; i < n; i++) {
      Object[] values = buffer.values(i, 2);
      assertThat(values).hasSize(TYPES.size() + 2);
      assertThat(values[TYPES.size()]).isNull();
      for (int c = 0; c < TYPES.size(); c++) {
        Object expected = model.get(i).get(c);
        if (expected != null) {
          assertThat(values[c]).isInstanceOf(expected.getClass());
        }
      }
      GenericRow back = GenericRow.wrap(java.util.Arrays.copyOf(values, TYPES.size()));
      assertThat(back).as("row %d", i).isEqualTo(model.get(i));
      assertThat(buffer.kindAt(i)).isEqualTo(kinds.get(i));
    }
    int[] order = buffer.sortedPositions();
    assertThat(order).hasSize(n);
    boolean[] seen = new boolean[n];
    for (int p : order) {
      assertThat(seen[p]).isFalse();
      seen[p] = true;
    }
    for (int i = 0; i + 1 < n; i++) {
      int a = order[i];
      int b = order[i + 1];
      int c = RowComparator.compare(model.get(a), model.get(b), keys);
      assertThat(c).as("sorted positions %d, %d", a, b).isLessThanOrEqualTo(0);
      if (c == 0) {
        assertThat(a).as("stable").isLessThan(b);
      }
      assertThat(buffer.sameKey(a, b)).isEqualTo(c == 0);
      assertThat(Integer.signum(buffer.compare(a, b, keys))).isEqualTo(Integer.signum(c));
    }
    int[] all = new int[TYPES.size()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    for (int t = 0; t < 4 * n; t++) {
      int a = random.nextInt(n);
      int b = random.nextInt(n);
      int[] columns = {random.nextInt(TYPES.size())};
      if (t % 2 == 0) {
        columns = all;
      }
      assertThat(Integer.signum(buffer.compare(a, b, columns)))
          .as("compare %d, %d on %s", a, b, java.util.Arrays.toString(columns))
          .isEqualTo(Integer.signum(RowComparator.compare(model.get(a), model.get(b), columns)));
      assertThat(buffer.sameKey(a, b))
          .isEqualTo(RowComparator.compare(model.get(a), model.get(b), keys) == 0);
    }
  }

  /** A row with a value of each type (key columns never null), from small domains. */
  static GenericRow row(Random random, int[] keys) {
    Object[] values = new Object[TYPES.size()];
    for (int i = 0; i < values.length; i++) {
      boolean key = i == keys[0] || (keys.length > 1 && i == keys[1]);
      values[i] = !key && random.nextInt(6) == 0 ? null : value(random, i);
    }
    return GenericRow.wrap(values);
  }

  static Object value(Random random, int column) {
    int small = random.nextInt(7) - 3;
    return switch (column) {
      case 0 -> random.nextInt(4) == 0 ? pick(random, Integer.MIN_VALUE, Integer.MAX_VALUE) : small;
      case 1 ->
          random.nextInt(4) == 0 ? pick(random, Long.MIN_VALUE, Long.MAX_VALUE) : (long) small;
      case 2 -> pick(random, -0.0, 0.0, Double.NaN, -1.5, 2.25, Double.NEGATIVE_INFINITY, 1e300);
      case 3 -> random.nextBoolean();
      case 4 -> text(random, random.nextInt(50) == 0 ? 20_000 : 7);
      case 5 -> bytes(random);
      case 6 -> BigDecimal.valueOf(random.nextInt(5) == 0 ? 99_999_999L : small * 150L, 2);
      case 7 ->
          new BigDecimal(
              random.nextBoolean()
                  ? new BigInteger("123456789012345678901234567")
                      .multiply(BigInteger.valueOf(small))
                  : BigInteger.valueOf(small),
              3);
      case 8 -> LocalDate.ofEpochDay(random.nextInt(5) == 0 ? -700_000 + small : small);
      case 9 ->
          LocalDateTime.of(2024, 1, 1, 0, 0)
              .plusSeconds(random.nextInt(3) - 1)
              .plusNanos(1000L * random.nextInt(3));
      case 10 -> (byte) (int) pick(random, -128, -1, 0, 1, 127);
      case 11 -> (short) (int) pick(random, -32768, -1, 0, 1, 32767);
      case 12 -> pick(random, -0.0f, 0.0f, Float.NaN, -1.5f, Float.MAX_VALUE);
      case 13 -> pick(random, "!!!", "A  ", "a  ", "ab ", "é日x", "aa\uD83D");
      case 14 -> text(random, 6);
      case 15 -> Instant.ofEpochSecond(random.nextInt(3) - 1, 1000L * random.nextInt(3));
      default -> throw new IllegalArgumentException("column " + column);
    };
  }

  @SafeVarargs
  private static <T> T pick(Random random, T... choices) {
    return choices[random.nextInt(choices.length)];
  }

  /**
   * Up to {@code maxLength} characters from a small alphabet: shared four-character prefixes,
   * Latin-1 and beyond (one string a row is Latin-1 or not), lone and paired surrogates, and
   * characters above U+E000 that sort after surrogates by code unit.
   */
  private static String text(Random random, int maxLength) {
    char[] alphabet = {
      'a', 'b', '\u0000', '\u00ff', '\u0100', '\uD83D', '\uDE00', '\uE000', '\uFFFF'
    };
    int length = random.nextInt(maxLength + 1);
    StringBuilder s = new StringBuilder(random.nextBoolean() ? "abab" : "");
    boolean latin1 = random.nextBoolean();
    for (int i = 0; i < length; i++) {
      s.append(alphabet[random.nextInt(latin1 ? 4 : alphabet.length)]);
    }
    return s.toString();
  }

  private static byte[] bytes(Random random) {
    int length = random.nextInt(12);
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (i < 8 && random.nextBoolean() ? 0 : random.nextInt(3) - 1);
    }
    return b;
  }
}
