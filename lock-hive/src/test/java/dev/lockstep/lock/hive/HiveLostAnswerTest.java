package dev.lockstep.lock.hive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Locks whose answer never arrives are not left behind in the metastore. */
class HiveLostAnswerTest {

  private static TestMetastore metastore;

  @BeforeAll
  static void startMetastore() throws Exception {
    metastore = TestMetastore.shared();
  }

  @Test
  void aLockRequestWhoseAnswerIsLostIsFoundAndUnlocked() throws Exception {
    try (PartitionableProxy proxy = new PartitionableProxy(metastore.port())) {
      Map<String, String> options = new HashMap<>(metastore.lockOptions());
      options.put("uri", proxy.uri());
      options.put("lock.hive.pool-size", "1");
      try (LockService service = LockServiceDiscovery.open(options);
          LockService other = LockServiceDiscovery.open(metastore.lockOptions())) {
        // Open the pooled connection first, so that the next answer is the lock request's.
        service.acquire("lost.answer", Duration.ofSeconds(5)).orElseThrow().close();

        proxy.loseNextAnswer();
        assertThatThrownBy(() -> service.acquire("lost.answer", Duration.ofSeconds(5)))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("Lost the answer")
            .hasMessageContaining("lost.answer");

        assertThat(metastore.locksOn("lost", "answer"))
            .as(
                "the request reached the metastore,"
                    + " and its lock was found by agent id and unlocked")
            .isEmpty();
        try (Lease lease = other.acquire("lost.answer", Duration.ZERO).orElseThrow()) {
          lease.ensureHeld();
        }
        try (Lease again = service.acquire("lost.answer", Duration.ofSeconds(5)).orElseThrow()) {
          again.ensureHeld();
        }
      }
    }
  }
}
