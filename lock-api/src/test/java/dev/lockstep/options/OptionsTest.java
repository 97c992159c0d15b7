package dev.lockstep.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitStrategy;
import dev.lockstep.lock.LockOptions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptionsTest {

  @Test
  void typedGettersNameTheKeyAndTheValueWhenTheyFail() {
    Options options = Options.of(Map.of("a", "yes", "b", "12x", "c", "soon"));

    assertThatThrownBy(() -> options.getBoolean("a", false))
        .hasMessageContaining("'a'")
        .hasMessageContaining("'yes'")
        .hasMessageContaining("true or false");
    assertThatThrownBy(() -> options.getInt("b", 1))
        .hasMessageContaining("'b'")
        .hasMessageContaining("whole number");
    assertThatThrownBy(() -> options.getDuration("c", Duration.ZERO))
        .hasMessageContaining("'c'")
        .hasMessageContaining("'soon'");
    assertThatThrownBy(() -> options.getRequired("missing", "the store's endpoint"))
        .hasMessageContaining("'missing'")
        .hasMessageContaining("the store's endpoint");
  }

  @Test
  void defaultsApplyOnlyWhenTheKeyIsAbsent() {
    Options options = Options.of(Map.of("n", " 7 ", "flag", "TRUE", "wait", "30 s"));

    assertThat(options.getInt("n", 1)).isEqualTo(7);
    assertThat(options.getInt("absent", 1)).isEqualTo(1);
    assertThat(options.getBoolean("flag", false)).isTrue();
    assertThat(options.getDuration("wait", Duration.ZERO)).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.getLong("absent", 9L)).isEqualTo(9L);
  }

  @Test
  void prefixedOptionsAreCutOutAndSecretsAreNeverPrinted() {
    Options options =
        Options.of(
            Map.of(
                "lock.jdbc.url",
                "jdbc:x",
                "lock.jdbc.password",
                "hunter2",
                "s3.secret-key",
                "abc",
                "other",
                "1"));

    assertThat(options.withPrefix("lock.jdbc.")).containsOnlyKeys("url", "password");
    assertThat(options.toString())
        .doesNotContain("hunter2")
        .doesNotContain("abc")
        .contains("lock.jdbc.url=jdbc:x")
        .contains("******");
  }

  @Test
  void lockOptionsHaveTheDocumentedDefaults() {
    LockOptions lock = LockOptions.from(Map.of());

    assertThat(lock.enabled()).isFalse();
    assertThat(lock.type()).isNull();
    assertThat(lock.acquireTimeout()).isEqualTo(Duration.ofMinutes(8));
    assertThat(lock.checkMaxSleep()).isEqualTo(Duration.ofSeconds(8));
  }

  @Test
  void lockOptionsAreParsedOnceWithUnits() {
    LockOptions lock =
        LockOptions.from(
            Map.of(
                "lock.enabled",
                "true",
                "lock.type",
                " jdbc ",
                "lock-acquire-timeout",
                "30 s",
                "lock-check-max-sleep",
                "200 ms"));

    assertThat(lock)
        .isEqualTo(new LockOptions(true, "jdbc", Duration.ofSeconds(30), Duration.ofMillis(200)));
    assertThatThrownBy(() -> LockOptions.from(Map.of("lock-check-max-sleep", "0 s")))
        .hasMessageContaining("lock-check-max-sleep");
  }

  @Test
  void commitOptionsValidateStrategyAttemptsAndMargin() {
    CommitOptions defaults = CommitOptions.from(Map.of());
    assertThat(defaults.strategy()).isEqualTo(CommitStrategy.AUTO);
    assertThat(defaults.writeAttempts()).isEqualTo(3);
    assertThat(defaults.leaseMargin()).isEqualTo(Duration.ofSeconds(1));
    assertThat(CommitOptions.from(Map.of("commit.strategy", "Atomic-Create")).strategy())
        .isEqualTo(CommitStrategy.ATOMIC_CREATE);

    assertThatThrownBy(() -> CommitOptions.from(Map.of("commit.strategy", "yolo")))
        .hasMessageContaining("'yolo'")
        .hasMessageContaining("[auto, atomic-create, rename, lock]");
    assertThatThrownBy(() -> CommitOptions.from(Map.of("commit.write-attempts", "0")))
        .hasMessageContaining("commit.write-attempts");
  }
}
