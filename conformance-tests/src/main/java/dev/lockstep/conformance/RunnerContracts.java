package dev.lockstep.conformance;

import java.util.List;

/**
 * The concrete contract classes the {@link ConformanceRunner} launches. They override nothing: the
 * kit's {@link ConformanceContract#target()} finds the target of the run they belong to through the
 * run id the runner passes as a JUnit configuration parameter.
 */
final class RunnerContracts {

  private RunnerContracts() {}

  /** Every contract, in report order. */
  static List<Class<? extends ConformanceContract>> all() {
    return List.of(
        Store.class,
        AtomicCreate.class,
        AtomicRename.class,
        UncertainOutcome.class,
        Lock.class,
        Commit.class);
  }

  /** The abstract contract a runner class checks, for example {@code StoreContract}. */
  static String contractName(Class<?> testClass) {
    Class<?> c = testClass;
    while (c != null && c != Object.class) {
      if (c.getSuperclass() == ConformanceContract.class) {
        return c.getSimpleName();
      }
      c = c.getSuperclass();
    }
    return testClass.getSimpleName();
  }

  static final class Store extends StoreContract {}

  static final class AtomicCreate extends AtomicCreateContract {}

  static final class AtomicRename extends AtomicRenameContract {}

  static final class UncertainOutcome extends UncertainOutcomeContract {}

  static final class Lock extends LockContract {}

  static final class Commit extends CommitContract {}
}
