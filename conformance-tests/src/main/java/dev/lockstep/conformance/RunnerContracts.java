package dev.lockstep.conformance;

import java.util.List;

/**
 * The concrete contract classes the {@link ConformanceRunner} launches: each returns the target of
 * the run in progress. Runs are serialized by the runner, so one current target is enough.
 */
final class RunnerContracts {

  private static volatile ConformanceTarget current;

  private RunnerContracts() {}

  static void setCurrent(ConformanceTarget target) {
    current = target;
  }

  static ConformanceTarget current() {
    return current;
  }

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

  static final class Store extends StoreContract {
    @Override
    protected ConformanceTarget target() {
      return current;
    }
  }

  static final class AtomicCreate extends AtomicCreateContract {
    @Override
    protected ConformanceTarget target() {
      return current;
    }
  }

  static final class AtomicRename extends AtomicRenameContract {
    @Override
    protected ConformanceTarget target() {
      return current;
    }
  }

  static final class UncertainOutcome extends UncertainOutcomeContract {
    @Override
    protected ConformanceTarget target() {
      return current;
    }
  }

  static final class Lock extends LockContract {
    @Override
    protected ConformanceTarget target() {
      return current;
    }
  }

  static final class Commit extends CommitContract {
    @Override
    protected ConformanceTarget target() {
      return current;
    }
  }
}
