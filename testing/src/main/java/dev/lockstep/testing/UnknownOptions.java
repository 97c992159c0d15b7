package dev.lockstep.testing;

import dev.lockstep.options.UnknownOptionException;

/**
 * For the option-table tests of every backend: a misspelt key must fail the same way wherever it is
 * given (the factory created from Java, discovery, the catalog-level check).
 */
public final class UnknownOptions {

  /** An action that is expected to refuse an option. */
  @FunctionalInterface
  public interface Action {
    void run() throws Exception;
  }

  private UnknownOptions() {}

  /**
   * The {@link UnknownOptionException} {@code action} throws; an {@link AssertionError} when it
   * throws something else or nothing.
   */
  public static UnknownOptionException catchUnknown(Action action) {
    try {
      action.run();
    } catch (UnknownOptionException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError("expected an UnknownOptionException", e);
    }
    throw new AssertionError("expected an UnknownOptionException, nothing was thrown");
  }
}
