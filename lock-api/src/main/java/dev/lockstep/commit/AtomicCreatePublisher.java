package dev.lockstep.commit;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import java.io.IOException;

/**
 * {@code commit.strategy=atomic-create}: the store's create-if-absent. Needs no lock.
 *
 * <p>Lock-free, it first makes sure, once per endpoint, that the store's create is atomic under a
 * race ({@link AtomicCreateProbe}, option {@code commit.atomic-create-probe}): nothing else stands
 * between two writers of one snapshot. Inside a lock it is used without that probe.
 */
final class AtomicCreatePublisher implements SnapshotPublisher {

  private final SupportsAtomicCreate store;
  private final AtomicCreateProbe probe;

  /** Inside a lock: no probe. */
  AtomicCreatePublisher(SupportsAtomicCreate store) {
    this(store, null);
  }

  /**
   * @param probe must pass before the first publish, or {@code null} for none
   */
  AtomicCreatePublisher(SupportsAtomicCreate store, AtomicCreateProbe probe) {
    this.store = store;
    this.probe = probe;
  }

  @Override
  public String describe() {
    return CommitStrategy.ATOMIC_CREATE.value();
  }

  /**
   * @throws CommitStrategyUnavailableException when the store failed the probe; nothing written
   */
  @Override
  public void publish(Path target, byte[] content) throws IOException, InterruptedException {
    if (probe != null) {
      probe.ensureAtomic();
    }
    store.createAtomically(target, content);
  }
}
