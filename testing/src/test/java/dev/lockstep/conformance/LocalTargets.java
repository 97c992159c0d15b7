package dev.lockstep.conformance;

import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.TestTiming;
import java.time.Duration;

/**
 * Conformance targets over the local store ({@link LocalFileIO}) and the in-JVM test lock, with
 * round counts small enough for the kit's own build on a shared 2-core machine.
 */
final class LocalTargets {

  /** The in-JVM lock's lease TTL, which is also its holder-death bound. */
  static final Duration LEASE_TTL = TestTiming.seconds(3);

  private LocalTargets() {}

  /** Every capability declared present: local store, in-JVM lock with a 3 s lease TTL. */
  static ConformanceTarget.Builder local(java.nio.file.Path root) {
    InJvmLockClients lock = new InJvmLockClients(LEASE_TTL);
    return ConformanceTarget.builder()
        .uri("file://" + root.toAbsolutePath())
        .storeFactory(LocalFileIO::new)
        .lockFactory(lock.factory())
        .holderKiller(lock.killer())
        .declare(Capability.values())
        .options(moderate());
  }

  /** Round counts and a time factor for the kit's own tests. */
  static java.util.Map<String, String> moderate() {
    return java.util.Map.of(
        ConformanceSettings.ROUNDS, "30",
        ConformanceSettings.CONTENDERS, "6",
        ConformanceSettings.COMMITTERS, "4",
        ConformanceSettings.COMMITS_PER_COMMITTER, "8",
        ConformanceSettings.LOCK_INCREMENTS, "20",
        ConformanceSettings.TIME_FACTOR, Double.toString(TestTiming.FACTOR));
  }
}
