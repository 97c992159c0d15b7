package dev.lockstep.conformance;

import java.time.Duration;

/**
 * The result of one conformance check.
 *
 * @param contract the contract class's simple name, for example {@code AtomicCreateContract}
 * @param check the check (test method) name, for example {@code exactlyOneCreatorWinsEachRound}
 * @param status passed, failed or skipped
 * @param reason why it failed or was skipped (the assertion message); for a pass, what it proves
 * @param detail the failure's stack trace, or {@code ""}
 * @param duration how long the check ran
 */
public record CheckResult(
    String contract, String check, Status status, String reason, String detail, Duration duration) {

  /** The outcome of a check. */
  public enum Status {
    PASSED,
    FAILED,
    SKIPPED
  }

  /** {@code Contract.check}. */
  public String name() {
    return contract + "." + check;
  }
}
