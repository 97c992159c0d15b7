package dev.lockstep.cli;

/**
 * A problem the user can fix: the message names the file or option and the fix. Printed as one
 * line, never with a stack trace.
 */
final class UserError extends RuntimeException {

  private final int exitCode;

  UserError(String message) {
    this(message, OneLineErrors.BAD_INPUT);
  }

  UserError(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
