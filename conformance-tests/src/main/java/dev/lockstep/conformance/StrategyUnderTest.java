package dev.lockstep.conformance;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A commit strategy the commit checks exercise, and the declared capability it rests on. The lock
 * strategy runs over the store seen as a blind-put object store ({@link BlindPutStore}: no
 * capability mixins, and a plain write is check-then-put with replace), so that the lock alone must
 * keep two writers from both winning a snapshot: what an object store without conditional writes
 * relies on. A lock that lets two holders in loses commits there.
 */
enum StrategyUnderTest {
  ATOMIC_CREATE("atomic-create", Capability.ATOMIC_CREATE),
  RENAME("rename", Capability.ATOMIC_RENAME),
  LOCK("lock (plain write)", Capability.LOCK);

  private final String label;
  private final Capability capability;

  StrategyUnderTest(String label, Capability capability) {
    this.label = label;
    this.capability = capability;
  }

  /** The strategy as the report names it. */
  String label() {
    return label;
  }

  /** The capability it needs. */
  Capability capability() {
    return capability;
  }

  /**
   * A committer with this strategy over {@code store}.
   *
   * @param lock the lock service for {@link #LOCK}; ignored otherwise
   */
  SnapshotCommitter open(
      FileIO store, Path snapshotDirectory, LockService lock, ConformanceTarget target) {
    Map<String, String> options = new HashMap<>(target.options());
    ConformanceSettings settings = target.settings();
    switch (this) {
      case ATOMIC_CREATE:
        options.put(CommitOptions.COMMIT_STRATEGY, "atomic-create");
        options.put(LockOptions.LOCK_ENABLED, "false");
        return SnapshotCommitter.builder(store, snapshotDirectory, "conformance.table")
            .options(CommitOptions.from(options))
            .build();
      case RENAME:
        options.put(CommitOptions.COMMIT_STRATEGY, "rename");
        options.put(LockOptions.LOCK_ENABLED, "false");
        return SnapshotCommitter.builder(store, snapshotDirectory, "conformance.table")
            .options(CommitOptions.from(options))
            .build();
      case LOCK:
      default:
        options.put(CommitOptions.COMMIT_STRATEGY, "lock");
        options.put(LockOptions.LOCK_ENABLED, "true");
        options.putIfAbsent(
            LockOptions.LOCK_ACQUIRE_TIMEOUT,
            settings.scaled(Duration.ofSeconds(120)).toMillis() + " ms");
        return SnapshotCommitter.builder(
                new BlindPutStore(store), snapshotDirectory, "conformance.table")
            .options(CommitOptions.from(options))
            .lockService(lock)
            .build();
    }
  }

  @Override
  public String toString() {
    return label;
  }
}
