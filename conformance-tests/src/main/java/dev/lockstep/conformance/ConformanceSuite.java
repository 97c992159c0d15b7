package dev.lockstep.conformance;

import org.junit.jupiter.api.Nested;

/**
 * The one entry point of the kit: every contract, as JUnit 5 {@link Nested} suites, against one
 * {@link #target()}. A vendor subclasses it once per target:
 *
 * <pre>
 * class S3ConformanceTest extends ConformanceSuite {
 *   &#64;BeforeAll static void start() { ... }   // a server shared by every contract
 *   &#64;Override protected ConformanceTarget target() { return ...; }
 * }
 * </pre>
 *
 * <p>Each contract's checks follow the declaration rules of {@link ConformanceContract}: a
 * capability declared absent has its checks skipped with the reason (and its declaration check
 * asserts that using it fails cleanly); an undeclared one fails. The suite holds no state of its
 * own: each nested contract finds its enclosing suite instance through JUnit ({@link
 * ConformanceContract#target()}) and asks it for the target.
 */
public abstract class ConformanceSuite {

  /** What is under test. Called once per check; may build a fresh target each time. */
  protected abstract ConformanceTarget target();

  /** {@link StoreContract}. */
  @Nested
  class Store extends StoreContract {}

  /** {@link AtomicCreateContract}. */
  @Nested
  class AtomicCreate extends AtomicCreateContract {}

  /** {@link AtomicRenameContract}. */
  @Nested
  class AtomicRename extends AtomicRenameContract {}

  /** {@link UncertainOutcomeContract}. */
  @Nested
  class UncertainOutcome extends UncertainOutcomeContract {}

  /** {@link LockContract}. */
  @Nested
  class Lock extends LockContract {}

  /** {@link CommitContract}. */
  @Nested
  class Commit extends CommitContract {}
}
