package dev.lockstep.conformance;

import dev.lockstep.fs.Path;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/** Decides, call by call, which fault {@link FaultInjectingStore} injects. Thread-safe. */
@FunctionalInterface
interface FaultPlan {

  /** What happens to one store call. */
  enum Fault {
    /** The call goes through. */
    NONE,
    /** The call fails with an {@link java.io.IOException} before it reaches the store. */
    FAIL_BEFORE,
    /**
     * A write reaches the store and lands, then its answer is lost: the caller sees an {@link
     * dev.lockstep.fs.UncertainWriteException}. Treated as {@link #FAIL_BEFORE} for reads.
     */
    LOSE_ANSWER
  }

  /**
   * @param operation {@code write}, {@code createAtomically}, {@code renameAtomically}, {@code
   *     read}, {@code exists}, {@code getStatus}, {@code list}, {@code delete} or {@code mkdirs}
   * @param path the path the call is for (the target of a rename)
   */
  Fault decide(String operation, Path path);

  /** No faults. */
  static FaultPlan none() {
    return (operation, path) -> Fault.NONE;
  }

  /**
   * Each call fails with probability {@code rate}: half of the failing writes land and lose their
   * answer, the other half fail before landing; failing reads fail before.
   */
  static FaultPlan random(double rate, long seed) {
    SplittableRandom root = new SplittableRandom(seed);
    ThreadLocal<SplittableRandom> random =
        ThreadLocal.withInitial(
            () -> {
              synchronized (root) {
                return root.split();
              }
            });
    return (operation, path) -> {
      SplittableRandom r = random.get();
      if (r.nextDouble() >= rate) {
        return Fault.NONE;
      }
      return r.nextBoolean() ? Fault.LOSE_ANSWER : Fault.FAIL_BEFORE;
    };
  }

  /**
   * The next {@code count} writes (write, atomic create, atomic rename) whose target name starts
   * with {@code namePrefix} get {@code fault}; every other call goes through.
   */
  static FaultPlan nextWrites(String namePrefix, int count, Fault fault) {
    AtomicInteger left = new AtomicInteger(count);
    return (operation, path) -> {
      boolean write =
          operation.equals("write")
              || operation.equals("createAtomically")
              || operation.equals("renameAtomically");
      if (write && path.name().startsWith(namePrefix) && left.getAndDecrement() > 0) {
        return fault;
      }
      return Fault.NONE;
    };
  }
}
