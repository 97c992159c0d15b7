package dev.lockstep.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.testing.InJvmLockService;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code runWithLock(database, table, callable)} in the shape Paimon users know. */
class CatalogLockTest {

  private final InJvmLockService service = new InJvmLockService();
  private final CatalogLock lock =
      CatalogLock.over(service, LockOptions.from(Map.of("lock-acquire-timeout", "100 ms")));

  @AfterEach
  void close() throws Exception {
    lock.close();
    service.close();
  }

  @Test
  void runsTheActionUnderTheTablesLeaseAndReleasesIt() throws Exception {
    String result =
        lock.runWithLock(
            "db",
            "t",
            () -> {
              assertThat(service.holder("db.t")).isPresent();
              return "done";
            });

    assertThat(result).isEqualTo("done");
    assertThat(service.holder("db.t")).isEmpty();
  }

  @Test
  void runWithLeaseHandsTheHeldLeaseToTheAction() throws Exception {
    long token =
        lock.runWithLease(
            "db",
            "t",
            lease -> {
              lease.ensureHeld();
              assertThat(lease.key()).isEqualTo(CatalogLock.key("db", "t"));
              return lease.fencingToken();
            });

    assertThat(token).isEqualTo(1);
  }

  @Test
  void aLockHeldElsewhereTimesOutNamingTheOption() throws Exception {
    try (Lease other = service.acquire("db.t", Duration.ZERO).orElseThrow()) {
      assertThatThrownBy(() -> lock.runWithLock("db", "t", () -> "never"))
          .isInstanceOf(TimeoutException.class)
          .hasMessageContaining("db.t")
          .hasMessageContaining("lock-acquire-timeout")
          .hasMessageContaining("100 ms");
      assertThat(other.isHeld()).isTrue();
    }
  }

  @Test
  void theActionsExceptionPassesThroughAndTheLeaseIsReleased() {
    IllegalStateException boom = new IllegalStateException("boom");

    assertThatThrownBy(
            () ->
                lock.runWithLock(
                    "db",
                    "t",
                    () -> {
                      throw boom;
                    }))
        .isSameAs(boom);
    assertThat(service.holder("db.t")).isEmpty();
  }
}
