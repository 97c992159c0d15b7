package dev.lockstep.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

  @Test
  void parsesNumbersWithUnitsWithOrWithoutASpace() {
    assertThat(Durations.parse("30 s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("8 min")).isEqualTo(Duration.ofMinutes(8));
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse(" 1 h ")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("2 d")).isEqualTo(Duration.ofDays(2));
    assertThat(Durations.parse("3 Minutes")).isEqualTo(Duration.ofMinutes(3));
    assertThat(Durations.parse("250 us")).isEqualTo(Duration.ofNanos(250_000));
  }

  @Test
  void aBareNumberIsMilliseconds() {
    assertThat(Durations.parse("1500")).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void rejectsTextThatIsNotAWholeNumberAndAUnit() {
    for (String bad : new String[] {"", "s", "1.5 s", "-3 s", "10 fortnights", "ten s"}) {
      assertThatThrownBy(() -> Durations.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad + "'")
          .hasMessageContaining("\"30 s\"");
    }
    assertThatThrownBy(() -> Durations.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void formatsInTheLargestExactUnitAndRoundTrips() {
    assertThat(Durations.format(Duration.ofMinutes(8))).isEqualTo("8 min");
    assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90 s");
    assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500 ms");
    assertThat(Durations.format(Duration.ZERO)).isEqualTo("0 ms");
    for (Duration d :
        new Duration[] {
          Duration.ofDays(3), Duration.ofNanos(7), Duration.ofMillis(8001), Duration.ofHours(25)
        }) {
      assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
    }
  }

  @Test
  void formatsMeasuredDurationsRoundedInTheLargestUnitReached() {
    // A lease's time left, measured with System.nanoTime: never a whole number of any unit.
    assertThat(Durations.formatRounded(Duration.ofNanos(26_947_873_412L))).isEqualTo("26.9 s");
    assertThat(Durations.formatRounded(Duration.ofNanos(799_873_412L))).isEqualTo("800 ms");
    assertThat(Durations.formatRounded(Duration.ofNanos(99_960_000L))).isEqualTo("100 ms");
    assertThat(Durations.formatRounded(Duration.ofSeconds(90))).isEqualTo("1.5 min");
    assertThat(Durations.formatRounded(Duration.ofSeconds(30))).isEqualTo("30 s");
    assertThat(Durations.formatRounded(Duration.ofHours(25))).isEqualTo("1 d");
    assertThat(Durations.formatRounded(Duration.ofNanos(1_500))).isEqualTo("1.5 us");
    assertThat(Durations.formatRounded(Duration.ofNanos(7))).isEqualTo("7 ns");
    assertThat(Durations.formatRounded(Duration.ZERO)).isEqualTo("0 ms");
    assertThat(Durations.formatRounded(Duration.ofMillis(-1500))).isEqualTo("-1.5 s");
  }
}
