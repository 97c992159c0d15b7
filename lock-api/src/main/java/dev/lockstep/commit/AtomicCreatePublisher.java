package dev.lockstep.commit;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import java.io.IOException;

/** {@code commit.strategy=atomic-create}: the store's create-if-absent. Needs no lock. */
final class AtomicCreatePublisher implements SnapshotPublisher {

  private final SupportsAtomicCreate store;

  AtomicCreatePublisher(SupportsAtomicCreate store) {
    this.store = store;
  }

  @Override
  public String describe() {
    return CommitStrategy.ATOMIC_CREATE.value();
  }

  @Override
  public void publish(Path target, byte[] content) throws IOException {
    store.createAtomically(target, content);
  }
}
