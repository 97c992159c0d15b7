package dev.lockstep.paimon.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.paimon.options.Options;
import org.junit.jupiter.api.Test;

/** {@link LockTypeCheck} against Paimon 1.3.1's own factory discovery. */
class LockTypeCheckTest {

  @Test
  void everyDiscoverableIdentifierAndNoLockTypePass() {
    for (String type : new String[] {"lockstep-zookeeper", "lockstep-jdbc", "lockstep-hive"}) {
      assertThatCode(() -> LockTypeCheck.check(Options.fromMap(Map.of("lock.type", type)), true))
          .doesNotThrowAnyException();
    }
    assertThatCode(() -> LockTypeCheck.check(Options.fromMap(Map.of()), true))
        .doesNotThrowAnyException();
  }

  @Test
  void theLockIsCheckedOnlyWhenPaimonWouldUseIt() {
    assertThatCode(
            () ->
                LockTypeCheck.check(
                    Options.fromMap(Map.of("lock.type", "nope", "lock.enabled", "false")), true))
        .doesNotThrowAnyException();
    assertThatCode(() -> LockTypeCheck.check(Options.fromMap(Map.of("lock.type", "nope")), false))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                LockTypeCheck.check(
                    Options.fromMap(Map.of("lock.type", "nope", "lock.enabled", "true")), false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("\n")
        .hasMessageContaining("'lock.type' = 'nope'")
        .hasMessageNotContaining("did you mean");
  }

  @Test
  void theLineNamesTheValueTheLockstepIdentifiersAndPaimonsOwn() {
    assertThatThrownBy(
            () -> LockTypeCheck.check(Options.fromMap(Map.of("lock.type", "lockstep-zk")), true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("\n")
        .hasMessageContaining("'lock.type' = 'lockstep-zk'")
        .hasMessageContaining("did you mean 'lockstep-zookeeper'?")
        .hasMessageContaining("another one found (jdbc, hive)")
        .satisfies(e -> System.out.println("lock.type check: " + e.getMessage()));
  }

  @Test
  void aMisspellingIsMatchedToItsFamily() {
    assertThat(LockTypeCheck.suggestion("lockstep-zk")).contains("lockstep-zookeeper");
    assertThat(LockTypeCheck.suggestion("ZooKeeper")).contains("lockstep-zookeeper");
    assertThat(LockTypeCheck.suggestion("lockstep-mysql")).contains("lockstep-jdbc");
    assertThat(LockTypeCheck.suggestion("lockstep-postgresql")).contains("lockstep-jdbc");
    assertThat(LockTypeCheck.suggestion("lockstep-hms")).contains("lockstep-hive");
    assertThat(LockTypeCheck.suggestion("lockstep-jbdc")).contains("lockstep-jdbc");
    assertThat(LockTypeCheck.suggestion("etcd")).isEmpty();
  }
}
