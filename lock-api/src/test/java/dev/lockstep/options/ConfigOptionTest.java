package dev.lockstep.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.options.ConfigOption.Requirement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigOptionTest {

  private static final ConfigOption<Duration> TIMEOUT =
      ConfigOption.key("x.timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(30))
          .withFallbackKeys("x.old-timeout")
          .require(Requirement.positive())
          .withDescription("how long");
  private static final ConfigOption<String> PASSWORD =
      ConfigOption.key("x.password")
          .stringType()
          .noDefaultValue()
          .secret()
          .require(p -> p.length() >= 4, "at least 4 characters");

  private enum Mode {
    AUTO,
    ALWAYS_ON
  }

  @Test
  void readsTheKeyThenTheFallbackKeyThenTheDefault() {
    assertThat(TIMEOUT.read(Map.of())).isEqualTo(Duration.ofSeconds(30));
    assertThat(TIMEOUT.read(Map.of("x.old-timeout", "5 s"))).isEqualTo(Duration.ofSeconds(5));
    assertThat(TIMEOUT.read(Map.of("x.old-timeout", "5 s", "x.timeout", "7 s")))
        .as("the main key wins")
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(TIMEOUT.keys()).containsExactly("x.timeout", "x.old-timeout");
  }

  @Test
  void aBadValueNamesTheKeyUsedTheValueAndTheFix() {
    assertThatThrownBy(() -> TIMEOUT.read(Map.of("x.old-timeout", "soon")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "Option 'x.old-timeout' is 'soon'; write a whole number and a unit");
    assertThatThrownBy(() -> TIMEOUT.read(Map.of("x.timeout", "0 s")))
        .hasMessage("Option 'x.timeout' is 0 ms; it must be positive.");
    assertThatThrownBy(() -> TIMEOUT.check(Duration.ofSeconds(-1)))
        .hasMessage("Option 'x.timeout' is -1 s; it must be positive.");
  }

  @Test
  void aSecretIsNeverPrinted() {
    assertThatThrownBy(() -> PASSWORD.read(Map.of("x.password", "abc")))
        .hasMessage("Option 'x.password' is ******; it must be at least 4 characters.")
        .hasMessageNotContaining("abc");
    assertThat(PASSWORD.isSecret()).isTrue();
    assertThat(PASSWORD.read(Map.of())).isNull();
  }

  @Test
  void enumsAreWrittenInLowerCaseWithDashes() {
    ConfigOption<Mode> mode =
        ConfigOption.key("x.mode").enumType(Mode.class).defaultValue(Mode.AUTO);
    assertThat(mode.read(Map.of("x.mode", "Always-On"))).isEqualTo(Mode.ALWAYS_ON);
    assertThat(mode.defaultText()).isEqualTo("auto");
    assertThatThrownBy(() -> mode.read(Map.of("x.mode", "never")))
        .hasMessage("Option 'x.mode' is 'never'; write one of [auto, always-on].");
  }

  @Test
  void sizesAcceptBothSpellings() {
    ConfigOption<Long> size = ConfigOption.key("x.size").sizeType().defaultValue(64L << 20);
    assertThat(size.read(Map.of("x.size", "64 mb"))).isEqualTo(size.read(Map.of("x.size", "64mb")));
    assertThat(size.defaultText()).isEqualTo("64 MiB");
  }
}
