package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.store.CoreOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The wait after a snapshot conflict follows the strategy
 * (docs/engine.md#design-3-optimistic-commit): a bounded jitter that never grows when no lock was
 * contended, a doubling backoff only while the lock was contended. These are the ranges the policy
 * decides; no sleep is timed.
 */
class RetryPolicyTest {

  private static final long MS = 1_000_000L;

  private final RetryPolicy policy = new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(200));

  @Test
  void conflictsWithoutAContendedLockRetryAtOnceWithAJitterThatNeverGrows() {
    for (int conflict = 0; conflict < 100; conflict++) {
      assertThat(policy.afterConflict(false))
          .as("conflict %s", conflict)
          .isEqualTo(new RetryPolicy.Pause(false, 0, RetryPolicy.JITTER_MULTIPLE * 10 * MS));
    }
  }

  @Test
  void conflictsUnderAContendedLockBackOffDoublingUpToTheMaximum() {
    List<Long> bounds = new ArrayList<>();
    for (int conflict = 0; conflict < 8; conflict++) {
      RetryPolicy.Pause pause = policy.afterConflict(true);
      assertThat(pause.backoff()).isTrue();
      assertThat(pause.minNanos())
          .as("half of the bound, so the wait surely grows")
          .isEqualTo(pause.maxNanos() / 2);
      bounds.add(pause.maxNanos() / MS);
    }

    assertThat(bounds).containsExactly(10L, 20L, 40L, 80L, 160L, 200L, 200L, 200L);
  }

  @Test
  void aConflictOnAFreeLockEndsTheBackoff() {
    policy.afterConflict(true);
    policy.afterConflict(true);
    policy.afterConflict(true);

    assertThat(policy.afterConflict(false).backoff()).isFalse();
    assertThat(policy.afterConflict(true).maxNanos())
        .as("backoff starts again from the minimum")
        .isEqualTo(10 * MS);
  }

  @Test
  void theJitterNeverExceedsTheMaximumWait() {
    RetryPolicy narrow = new RetryPolicy(Duration.ofMillis(150), Duration.ofMillis(200));

    assertThat(narrow.afterConflict(false).maxNanos()).isEqualTo(200 * MS);
  }

  @Test
  void drawsStayInTheDecidedRange() {
    RetryPolicy.Pause jitter = policy.afterConflict(false);
    RetryPolicy.Pause backoff = policy.afterConflict(true);
    for (int i = 0; i < 1000; i++) {
      assertThat(jitter.drawNanos()).isBetween(0L, jitter.maxNanos());
      assertThat(backoff.drawNanos()).isBetween(backoff.minNanos(), backoff.maxNanos());
    }
  }

  @Test
  void zeroWaitsMeanRetryingWithoutAnyWait() {
    RetryPolicy none = new RetryPolicy(Duration.ZERO, Duration.ZERO);

    assertThat(none.afterConflict(false).drawNanos()).isZero();
    assertThat(none.afterConflict(true).drawNanos()).isZero();
  }

  @Test
  void defaultsFollowTheOptions() {
    RetryPolicy defaults = RetryPolicy.of(CoreOptions.from(Map.of()));

    assertThat(defaults.afterConflict(false).maxNanos())
        .isEqualTo(
            RetryPolicy.JITTER_MULTIPLE * CoreOptions.COMMIT_MIN_RETRY_WAIT_DEFAULT.toNanos());
    assertThat(defaults.afterConflict(true).maxNanos())
        .isEqualTo(CoreOptions.COMMIT_MIN_RETRY_WAIT_DEFAULT.toNanos());
  }
}
