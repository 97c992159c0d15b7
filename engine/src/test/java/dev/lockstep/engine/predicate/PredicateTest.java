package dev.lockstep.engine.predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The predicate API: three-valued logic, statistics, truncated bounds and the parser. */
class PredicateTest {

  static final RowType ROW =
      new RowType(
          List.of(
              new DataField(0, "a", DataType.intType()),
              new DataField(1, "s", DataType.string()),
              new DataField(2, "d", DataType.decimal(10, 2)),
              new DataField(3, "day", DataType.date()),
              new DataField(4, "ts", DataType.timestamp()),
              new DataField(5, "x", DataType.doubleType())));

  private static Predicate parse(String text) {
    return PredicateParser.parse(ROW, text);
  }

  private static GenericRow row(Integer a, String s) {
    return GenericRow.of(a, s, null, null, null, null);
  }

  @Test
  void rowsAreEvaluatedWithThreeValuedLogic() {
    GenericRow nullA = row(null, "x");
    assertThat(parse("a = 1").eval(nullA)).isNull();
    assertThat(parse("NOT a = 1").eval(nullA)).isNull();
    assertThat(parse("a <> 1").eval(nullA)).isNull();
    assertThat(parse("a NOT IN (1, 2)").eval(nullA)).isNull();
    assertThat(parse("a = 1 AND s = 'y'").eval(nullA)).isFalse();
    assertThat(parse("a = 1 OR s = 'x'").eval(nullA)).isTrue();
    assertThat(parse("a = 1 OR s = 'y'").eval(nullA)).isNull();
    assertThat(parse("a IS NULL").eval(nullA)).isTrue();
    assertThat(parse("NOT (a IS NOT NULL)").eval(nullA)).isTrue();
    assertThat(parse("a = 1 OR s = 'y'").test(nullA)).isFalse();
    assertThat(parse("NOT (a = 1 OR s = 'y')").test(nullA)).isFalse();
    GenericRow r = row(5, "b");
    assertThat(parse("a >= 5 AND a <= 5 AND a > 4 AND a < 6 AND a <> 4").test(r)).isTrue();
    assertThat(parse("a IN (1, 5) AND s NOT IN ('a', 'c')").test(r)).isTrue();
    assertThat(parse("NOT (a IN (1, 5))").test(r)).isFalse();
  }

  @Test
  void statisticsSayMightMatchUnlessNoRowCanBeTrue() {
    StatsView stats =
        StatsView.of(10, new FieldStats[] {new FieldStats(3, 7, 2L), new FieldStats("b", "d", 0L)});
    assertThat(parse("a = 3").mightMatch(stats)).isTrue();
    assertThat(parse("a = 8").mightMatch(stats)).isFalse();
    assertThat(parse("a < 3").mightMatch(stats)).isFalse();
    assertThat(parse("a <= 3").mightMatch(stats)).isTrue();
    assertThat(parse("a > 7").mightMatch(stats)).isFalse();
    assertThat(parse("a IN (1, 2, 8)").mightMatch(stats)).isFalse();
    assertThat(parse("a IS NULL").mightMatch(stats)).isTrue();
    assertThat(parse("s IS NULL").mightMatch(stats)).isFalse();
    assertThat(parse("NOT (s IS NOT NULL)").mightMatch(stats)).isFalse();
    assertThat(parse("NOT (a < 8)").mightMatch(stats)).isFalse();
    assertThat(parse("a = 8 OR s = 'c'").mightMatch(stats)).isTrue();
    assertThat(parse("a = 8 OR s = 'e'").mightMatch(stats)).isFalse();
    // Columns without statistics (d, day) might match anything.
    assertThat(parse("d = 1 AND day IS NULL").mightMatch(stats)).isTrue();
    // One value only: <> and NOT IN of it cannot be true.
    StatsView one = StatsView.of(4, new FieldStats[] {new FieldStats(3, 3, 1L)});
    assertThat(parse("a <> 3").mightMatch(one)).isFalse();
    assertThat(parse("a NOT IN (3, 4)").mightMatch(one)).isFalse();
    assertThat(parse("a <> 4").mightMatch(one)).isTrue();
    // All NULL: only IS NULL can be true.
    StatsView nulls = StatsView.of(4, new FieldStats[] {new FieldStats(null, null, 4L)});
    assertThat(parse("a <> 3").mightMatch(nulls)).isFalse();
    assertThat(parse("a IS NOT NULL").mightMatch(nulls)).isFalse();
    assertThat(parse("a IS NULL").mightMatch(nulls)).isTrue();
    // Unknown null count and bounds: everything might match.
    StatsView unknown = StatsView.of(-1, new FieldStats[] {FieldStats.UNKNOWN});
    assertThat(parse("a <> 3 AND a IS NULL AND a IS NOT NULL").mightMatch(unknown)).isTrue();
    assertThat(parse("a = 3").mightMatch(StatsView.of(0, null))).isFalse();
  }

  @Test
  void truncatedBoundsStayBounds() {
    assertThat(StatsCollector.truncateMin("abcdef", 3)).isEqualTo("abc");
    assertThat(StatsCollector.truncateMax("abcdef", 3)).isEqualTo("abd");
    assertThat(StatsCollector.truncateMax("abc", 3)).isEqualTo("abc");
    assertThat(StatsCollector.truncateMax("a\uD7FFz", 2)).isEqualTo("a\uE000");
    String top = new String(Character.toChars(Character.MAX_CODE_POINT));
    assertThat(StatsCollector.truncateMax("a" + top + "z", 2)).isEqualTo("b");
    assertThat(StatsCollector.truncateMax(top + top + "z", 2)).isNull();
    // Code points, not chars: an emoji is one character and never split.
    assertThat(StatsCollector.truncateMin("😀😀😀", 2)).isEqualTo("😀😀");
    assertThat(Values.compare(StatsCollector.truncateMax("😀😀😀", 2), "😀😀😀")).isPositive();
    assertThat((byte[]) StatsCollector.truncateMax(new byte[] {1, (byte) 0xFF, 3}, 2))
        .containsExactly(2);
    assertThat(StatsCollector.truncateMax(new byte[] {(byte) 0xFF, (byte) 0xFF, 3}, 2)).isNull();
    // The collector's bounds in truncate(2).
    StatsCollector c = new StatsCollector(new StatsMode[] {StatsMode.parse("truncate(2)")});
    c.update(GenericRow.of("zzz"));
    c.update(GenericRow.of("abc"));
    c.update(GenericRow.of((Object) null));
    assertThat(c.result()[0]).isEqualTo(new FieldStats("ab", "z{", 1L));
  }

  @Test
  void stringsCompareByCodePoint() {
    // U+FF5E sorts before U+1F600 by code point (and by UTF-8 bytes), after it by UTF-16 unit.
    assertThat(Values.compare("\uFF5E", "😀")).isNegative();
    assertThat("\uFF5E".compareTo("😀")).isPositive();
  }

  @Test
  void literalsOfEveryTypeParse() {
    GenericRow r =
        GenericRow.of(
            1,
            "it's",
            new BigDecimal("12.50"),
            LocalDate.of(2024, 5, 1),
            LocalDateTime.of(2024, 5, 1, 10, 0, 0, 123_456_000),
            -1.5e3);
    assertThat(
            parse(
                    "a = 1 and s = 'it''s' AND d = 12.5 AND day = DATE '2024-05-01' AND ts ="
                        + " TIMESTAMP '2024-05-01 10:00:00.123456' AND x = -1.5e3 AND x < -1499")
                .test(r))
        .isTrue();
    assertThat(parse("\"a\" = 1 AND `s` IS NOT NULL AND ((a > 0) OR NOT a = 1)").test(r)).isTrue();
    assertThat(parse("day < '2024-05-02' AND ts >= DATE '2024-05-01'").test(r)).isTrue();
  }

  @Test
  void parseErrorsAreOneLineWithThePositionAndAHint() {
    assertThatThrownBy(() -> parse("a = 1 AND"))
        .hasMessage(
            "At position 10: expected a column, found the end; a condition starts with a column"
                + " name.");
    assertThatThrownBy(() -> parse("a == 1"))
        .hasMessage(
            "At position 4: expected a value, found '='; compare with a single '=' (or <>, <, <=,"
                + " >, >=).");
    assertThatThrownBy(() -> parse("b = 1"))
        .hasMessage(
            "At position 1: expected a column, found 'b'; no column 'b'; the columns are [a, s, d,"
                + " day, ts, x].");
    assertThatThrownBy(() -> parse("a = NULL"))
        .hasMessageStartingWith("At position 5: expected a value, found 'NULL'; a comparison");
    assertThatThrownBy(() -> parse("(a = 1"))
        .hasMessage("At position 7: expected ')', found the end; close every '(' with ')'.");
    assertThatThrownBy(() -> parse("s = 'abc"))
        .hasMessageStartingWith("At position 5: expected a closing quote");
    assertThatThrownBy(() -> parse("a = 1 b = 2"))
        .hasMessageStartingWith("At position 7: expected AND, OR or the end");
    assertThatThrownBy(() -> parse("a = 1.5"))
        .hasMessage(
            "At position 1: The value 1.5 does not fit column 'a' of type INT (use a whole number"
                + " in its range).");
    assertThatThrownBy(() -> parse("day = DATE '2024-13-01'"))
        .hasMessageStartingWith("At position 12: expected a valid date");
    assertThatThrownBy(() -> parse("  ")).hasMessageStartingWith("The filter is empty");
  }
}
