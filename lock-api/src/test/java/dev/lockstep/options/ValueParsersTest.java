package dev.lockstep.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one parser: the spellings the modules' old size parsers disagreed on mean the same now. */
class ValueParsersTest {

  @Test
  void sizesAcceptTheUnitWithOrWithoutASpaceInAnyCase() {
    for (String text : List.of("64 mb", "64mb", "64 MB", "64MiB", "64 mib", "64m", " 64 M ")) {
      assertThat(ValueParsers.size(text)).as(text).isEqualTo(64L << 20);
    }
    assertThat(ValueParsers.size("512kb")).isEqualTo(512L << 10);
    assertThat(ValueParsers.size("1 GiB")).isEqualTo(1L << 30);
    assertThat(ValueParsers.size("2t")).isEqualTo(2L << 40);
    assertThat(ValueParsers.size("100")).isEqualTo(100);
    assertThat(ValueParsers.size("7 bytes")).isEqualTo(7);
  }

  @Test
  void badSizesAreRefusedWithTheFix() {
    for (String bad : List.of("", "mb", "64 xb", "-1 mb", "1.5 mb", "99999999999 tb")) {
      assertThatThrownBy(() -> ValueParsers.size(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("write");
    }
  }

  @Test
  void sizesPrintInTheLargestExactUnitAndReadBack() {
    assertThat(ValueParsers.formatSize(64L << 20)).isEqualTo("64 MiB");
    assertThat(ValueParsers.formatSize(100L * 1024)).isEqualTo("100 KiB");
    assertThat(ValueParsers.formatSize(1000)).isEqualTo("1000 bytes");
    assertThat(ValueParsers.formatSize(0)).isEqualTo("0 bytes");
    for (long bytes : new long[] {0, 1, 1023, 1024, 5L << 20, 3L << 30, (1L << 40) + 1}) {
      assertThat(ValueParsers.size(ValueParsers.formatSize(bytes))).isEqualTo(bytes);
    }
  }

  @Test
  void booleansAndDurationsAndNumbers() {
    assertThat(ValueParsers.bool(" TRUE ")).isTrue();
    assertThat(ValueParsers.bool("false")).isFalse();
    assertThatThrownBy(() -> ValueParsers.bool("yes")).hasMessage("write true or false");
    assertThat(ValueParsers.duration("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(ValueParsers.duration("8 min")).isEqualTo(Duration.ofMinutes(8));
    assertThatThrownBy(() -> ValueParsers.duration("soon")).hasMessageContaining("\"30 s\"");
    assertThat(ValueParsers.integer(" 7 ")).isEqualTo(7);
    assertThatThrownBy(() -> ValueParsers.integer("7.5")).hasMessage("write a whole number");
    assertThat(ValueParsers.decimal("0.05")).isEqualTo(0.05);
    assertThatThrownBy(() -> ValueParsers.decimal("NaN")).hasMessage("write a number");
  }
}
