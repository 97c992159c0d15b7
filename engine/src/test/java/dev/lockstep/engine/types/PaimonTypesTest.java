package dev.lockstep.engine.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.format.KeyCodec;
import dev.lockstep.engine.format.StatsCodec;
import dev.lockstep.engine.predicate.FieldStats;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The types taken from Paimon (issue 25): their text in schemas (Paimon's spellings too), the
 * values they accept, Paimon's cast from text (VARCHAR cut, CHAR cut and padded, TIMESTAMP_LTZ with
 * an offset or in UTC, cut to its precision), and keys that encode, decode and order by value.
 */
class PaimonTypesTest {

  @Test
  void typesPrintAndParseAsSqlAndPaimonWriteThem() throws Exception {
    assertThat(DataType.parse("tinyint")).isEqualTo(DataType.tinyint());
    assertThat(DataType.parse("SMALLINT NOT NULL")).isEqualTo(DataType.smallint().notNull());
    assertThat(DataType.parse("FLOAT")).isEqualTo(DataType.floatType());
    assertThat(DataType.parse("CHAR")).isEqualTo(DataType.charType(1));
    assertThat(DataType.parse("VARCHAR")).isEqualTo(DataType.varchar(1));
    assertThat(DataType.parse("VARCHAR(2147483647)")).isEqualTo(DataType.string());
    assertThat(DataType.parse("TIMESTAMP_LTZ")).isEqualTo(DataType.timestampLtz(6));
    assertThat(DataType.parse("TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL"))
        .isEqualTo(DataType.timestampLtz(3).notNull());
    assertThat(DataType.parse("timestamp with local time zone"))
        .isEqualTo(DataType.timestampLtz(6));
    for (DataType t :
        List.of(
            DataType.tinyint(),
            DataType.smallint().notNull(),
            DataType.floatType(),
            DataType.charType(7),
            DataType.varchar(200).notNull(),
            DataType.timestampLtz(0),
            DataType.timestampLtz(3))) {
      assertThat(DataType.parse(t.toString())).as(t.toString()).isEqualTo(t);
      // Schema files store the text; the JSON reads back to the same type.
      ObjectMapper json = new ObjectMapper();
      assertThat(json.readValue(json.writeValueAsString(t), DataType.class)).isEqualTo(t);
    }
    assertThat(DataType.charType(7).toString()).isEqualTo("CHAR(7)");
    assertThat(DataType.timestampLtz(3).notNull().toString())
        .isEqualTo("TIMESTAMP_LTZ(3) NOT NULL");
  }

  @Test
  void invalidLengthsAndPrecisionsAreRefusedWithTheRange() {
    assertThatThrownBy(() -> DataType.parse("VARCHAR(0)"))
        .hasMessageContaining("VARCHAR(0) is invalid: the length must be 1..");
    assertThatThrownBy(() -> DataType.parse("CHAR(-1)"))
        .hasMessageContaining("CHAR(-1) is invalid");
    assertThatThrownBy(() -> DataType.parse("TIMESTAMP_LTZ(9)"))
        .hasMessageContaining("TIMESTAMP_LTZ(9) is invalid")
        .hasMessageContaining("use TIMESTAMP_LTZ(6)");
    assertThatThrownBy(() -> DataType.parse("FLOAT(3)"))
        .hasMessageContaining("FLOAT takes no precision");
    assertThatThrownBy(() -> DataType.parse("REAL"))
        .hasMessageContaining("TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE");
  }

  @Test
  void valuesMustFitTheirType() {
    DataType.varchar(3).validate("v", "abc");
    DataType.varchar(3).validate("v", "日本語");
    assertThatThrownBy(() -> DataType.varchar(3).validate("v", "abcd"))
        .hasMessageContaining("Column 'v' is VARCHAR(3) but the value has 4 characters");
    DataType.charType(3).validate("c", "a  ");
    assertThatThrownBy(() -> DataType.charType(3).validate("c", "a"))
        .hasMessageContaining("blank-padded");
    assertThatThrownBy(() -> DataType.tinyint().validate("t", 1))
        .hasMessageContaining("takes a Byte, not a Integer");
    DataType.timestampLtz(3).validate("at", Instant.parse("2024-05-01T10:00:00.123Z"));
    assertThatThrownBy(
            () ->
                DataType.timestampLtz(3).validate("at", Instant.parse("2024-05-01T10:00:00.1234Z")))
        .hasMessageContaining("more than 3 fractional digits");
    assertThatThrownBy(() -> DataType.timestampLtz(6).validate("at", Instant.MAX))
        .hasMessageContaining("outside its range");
  }

  @Test
  void textCastsAsPaimonsCast() {
    // VARCHAR: cut to n code points (a surrogate pair is one); CHAR: cut, and padded to n.
    assertThat(TextCast.parse(DataType.varchar(3), "abcdef")).isEqualTo("abc");
    assertThat(TextCast.parse(DataType.varchar(3), "😀ab😀")).isEqualTo("😀ab");
    assertThat(TextCast.parse(DataType.varchar(3), " a")).isEqualTo(" a");
    assertThat(TextCast.parse(DataType.charType(3), "a")).isEqualTo("a  ");
    assertThat(TextCast.parse(DataType.charType(3), "")).isEqualTo("   ");
    assertThat(TextCast.parse(DataType.charType(3), "abcd")).isEqualTo("abc");
    // Whole numbers in range, no wrap-around.
    assertThat(TextCast.parse(DataType.tinyint(), " -128 ")).isEqualTo((byte) -128);
    assertThat(TextCast.parse(DataType.smallint(), "32767")).isEqualTo((short) 32767);
    assertThatThrownBy(() -> TextCast.parse(DataType.tinyint(), "128"))
        .hasMessage("out of range: TINYINT holds -128..127");
    assertThatThrownBy(() -> TextCast.parse(DataType.smallint(), "1e3"))
        .hasMessage("not a whole number");
    assertThat(TextCast.parse(DataType.floatType(), "0.1")).isEqualTo(0.1f);
    assertThat(TextCast.parse(DataType.floatType(), "-0.0")).isEqualTo(-0.0f);
    assertThat(TextCast.parse(DataType.floatType(), "NaN")).isEqualTo(Float.NaN);
    // TIMESTAMP_LTZ: the offset places it; none is UTC; the fraction is cut to the precision.
    DataType ltz3 = DataType.timestampLtz(3);
    assertThat(TextCast.parse(ltz3, "2024-05-01 10:00:00.123999+02:00"))
        .isEqualTo(Instant.parse("2024-05-01T08:00:00.123Z"));
    assertThat(TextCast.parse(ltz3, "2024-05-01T10:00:00Z"))
        .isEqualTo(Instant.parse("2024-05-01T10:00:00Z"));
    assertThat(TextCast.parse(ltz3, "2024-05-01 10:00"))
        .isEqualTo(Instant.parse("2024-05-01T10:00:00Z"));
    assertThat(TextCast.parse(ltz3, "2024-05-01")).isEqualTo(Instant.parse("2024-05-01T00:00:00Z"));
    assertThat(TextCast.parse(DataType.timestampLtz(0), "1969-12-31 23:59:59.9Z"))
        .as("cut toward the past")
        .isEqualTo(Instant.parse("1969-12-31T23:59:59Z"));
    assertThatThrownBy(() -> TextCast.parse(ltz3, "2024-02-30 10:00:00"))
        .hasMessageContaining("not a timestamp");
  }

  @Test
  void keysEncodeDecodeAndOrderByValue() {
    RowType keyType =
        new RowType(
            List.of(
                new DataField(0, "t", DataType.tinyint().notNull()),
                new DataField(1, "s", DataType.smallint().notNull()),
                new DataField(2, "f", DataType.floatType().notNull()),
                new DataField(3, "c", DataType.charType(2).notNull()),
                new DataField(4, "at", DataType.timestampLtz(6).notNull())));
    KeyCodec codec = new KeyCodec(keyType);
    Instant at = Instant.parse("1969-12-31T23:59:59.999999Z");
    List<GenericRow> ordered =
        List.of(
            GenericRow.of((byte) -128, (short) 5, 1f, "a ", at),
            GenericRow.of((byte) -1, (short) -32768, 1f, "a ", at),
            GenericRow.of((byte) -1, (short) -1, Float.NEGATIVE_INFINITY, "a ", at),
            GenericRow.of((byte) -1, (short) -1, -0.0f, "a ", at),
            GenericRow.of((byte) -1, (short) -1, 0.0f, "a ", at),
            GenericRow.of((byte) -1, (short) -1, Float.NaN, "a ", at.minusNanos(1000)),
            GenericRow.of((byte) -1, (short) -1, Float.NaN, "a ", at),
            GenericRow.of((byte) -1, (short) -1, Float.NaN, "ab", at),
            GenericRow.of((byte) 0, (short) 0, 0f, "a ", Instant.EPOCH),
            GenericRow.of((byte) 127, (short) 0, 0f, "a ", Instant.EPOCH));
    List<GenericRow> decoded = new ArrayList<>();
    for (GenericRow key : ordered) {
      GenericRow back = codec.decode(codec.encode(key));
      assertThat(back).isEqualTo(key);
      decoded.add(back);
    }
    Collections.reverse(decoded);
    decoded.sort(RowComparator.INSTANCE);
    assertThat(decoded).containsExactlyElementsOf(ordered);
  }

  @Test
  void statisticsOfTheNewTypesEncodeAndDecode() {
    RowType rowType =
        new RowType(
            List.of(
                new DataField(0, "t", DataType.tinyint()),
                new DataField(1, "f", DataType.floatType()),
                new DataField(2, "v", DataType.varchar(5)),
                new DataField(3, "at", DataType.timestampLtz(3))));
    StatsCodec codec = new StatsCodec(rowType);
    FieldStats[] stats = {
      new FieldStats((byte) -7, (byte) 100, 2L),
      new FieldStats(-0.0f, Float.NaN, 0L),
      new FieldStats("", "zz", 1L),
      new FieldStats(Instant.ofEpochMilli(-1), Instant.ofEpochMilli(1), 0L)
    };
    assertThat(codec.decode(codec.encode(stats))).containsExactly(stats);
  }
}
