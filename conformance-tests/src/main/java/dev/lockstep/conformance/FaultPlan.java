package dev.lockstep.conformance;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Decides, call by call, which fault a {@link FaultInjectingStore} injects: the one vocabulary of
 * store faults, used by the kit's checks and by the project's tests (through {@code
 * lockstep-testing}, which depends on the kit). Thread-safe.
 */
@FunctionalInterface
public interface FaultPlan {

  /** The store calls a fault can hit. */
  enum Operation {
    /** {@link SupportsAtomicCreate#createAtomically}. */
    CREATE(true),
    /** {@link SupportsAtomicRename#renameAtomically} (its path is the target). */
    RENAME(true),
    /** {@link FileIO#newOutputStream}: decided when the stream opens, applied when it closes. */
    WRITE(true),
    /** {@link FileIO#delete}. */
    DELETE(true),
    /** {@link FileIO#mkdirs}. */
    MKDIRS(true),
    /** {@link FileIO#newInputStream}. */
    READ(false),
    /** {@link FileIO#getStatus}. */
    STATUS(false),
    /** {@link FileIO#exists}. */
    EXISTS(false),
    /** {@link FileIO#list}. */
    LIST(false);

    private final boolean mutation;

    Operation(boolean mutation) {
      this.mutation = mutation;
    }

    /** Whether the call changes the store (and so can land and lose its answer). */
    public boolean isMutation() {
      return mutation;
    }

    /** Whether the call writes a file: {@link #WRITE}, {@link #CREATE}, {@link #RENAME}. */
    public boolean isWrite() {
      return this == WRITE || this == CREATE || this == RENAME;
    }
  }

  /** What goes wrong with one call. */
  enum Fault {
    /**
     * The call fails with an {@link java.io.IOException} before it reaches the store: nothing
     * changes. For a streamed write the bytes are taken and the failure comes at close, before the
     * store's stream is opened.
     */
    FAIL_BEFORE_LANDING,
    /**
     * A mutation reaches the store and lands, then its answer is lost: the caller sees an {@link
     * dev.lockstep.fs.UncertainWriteException}. When the store refuses the call (a conflict, say),
     * its own exception passes through unchanged.
     */
    LOSE_ANSWER_AFTER_LANDING,
    /**
     * A mutation reaches the store and whatever it answers is lost: success and refusal alike
     * become an {@link dev.lockstep.fs.UncertainWriteException}, which is what an SDK retry
     * answering 412 to its own first attempt, or a reset connection, looks like.
     */
    LOSE_ANY_ANSWER;

    /** Whether the fault lets the call reach the store and loses its answer. */
    public boolean losesAnswer() {
      return this != FAIL_BEFORE_LANDING;
    }
  }

  /**
   * The fault for one call, or {@code null} to let it through. A fault that loses an answer, asked
   * for a call that changes nothing, fails the call before it reaches the store.
   *
   * @param path the path the call is for (the target of a rename)
   */
  Fault decide(Operation operation, Path path);

  /** Asks {@code next} whenever this plan lets a call through. */
  default FaultPlan orElse(FaultPlan next) {
    return (operation, path) -> {
      Fault fault = decide(operation, path);
      return fault != null ? fault : next.decide(operation, path);
    };
  }

  /** No faults. */
  static FaultPlan none() {
    return (operation, path) -> null;
  }

  /**
   * Each call fails with probability {@code rate}: half of the failing writes ({@link
   * Operation#isWrite}) reach the store and lose any answer, the other half and every other failing
   * call fail before landing.
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
        return null;
      }
      return r.nextBoolean() && operation.isWrite()
          ? Fault.LOSE_ANY_ANSWER
          : Fault.FAIL_BEFORE_LANDING;
    };
  }

  /**
   * The next {@code count} writes ({@link Operation#isWrite}) whose target name starts with {@code
   * namePrefix} get {@code fault}; every other call goes through.
   */
  static FaultPlan nextWrites(String namePrefix, int count, Fault fault) {
    AtomicInteger left = new AtomicInteger(count);
    return (operation, path) -> {
      if (operation.isWrite() && path.name().startsWith(namePrefix) && left.getAndDecrement() > 0) {
        return fault;
      }
      return null;
    };
  }
}
