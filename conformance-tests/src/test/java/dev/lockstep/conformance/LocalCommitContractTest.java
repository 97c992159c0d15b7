package dev.lockstep.conformance;

import org.junit.jupiter.api.io.TempDir;

/** The kit's CommitContract against the local store (and the in-JVM test lock): all must pass. */
class LocalCommitContractTest extends CommitContract {

  @TempDir static java.nio.file.Path root;

  @Override
  protected ConformanceTarget target() {
    return LocalTargets.local(root).build();
  }
}
