package dev.lockstep.cli;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.commit.CommitStrategyUnavailableException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;

/**
 * Turns every failure into one line on standard error with the fix, and an exit code. A stack trace
 * is printed only with {@code --verbose} or {@code LOCKSTEP_DEBUG=1}.
 */
final class OneLineErrors
    implements CommandLine.IExecutionExceptionHandler, CommandLine.IParameterExceptionHandler {

  static final int BROKEN = 1;
  static final int BAD_INPUT = 2;
  static final int ENVIRONMENT = 3;

  @Override
  public int handleParseException(CommandLine.ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    cmd.getErr()
        .println(
            "lockstep: "
                + e.getMessage()
                + ". See '"
                + cmd.getCommandSpec().qualifiedName()
                + " --help'.");
    return BAD_INPUT;
  }

  @Override
  public int handleExecutionException(
      Exception e, CommandLine cmd, CommandLine.ParseResult parseResult) {
    if (CliLogging.verbose() || "1".equals(System.getenv("LOCKSTEP_DEBUG"))) {
      e.printStackTrace(cmd.getErr());
    }
    String line = describe(e);
    int code = exitCode(e);
    if (code == ENVIRONMENT && !(unwrap(e) instanceof UserError) && !Interruption.requested()) {
      String damage = TableDamage.explain(e, cmd);
      if (damage != null) {
        line = damage;
      }
    }
    if (Interruption.requested()) {
      Throwable cause = unwrap(e);
      line =
          "interrupted by "
              + Interruption.name()
              + (cause instanceof java.io.InterruptedIOException
                      || cause instanceof java.nio.channels.ClosedByInterruptException
                  ? ""
                  : ": " + line);
      code = Interruption.exitCode();
    }
    cmd.getErr().println("lockstep: " + line);
    return code;
  }

  /** Unwraps the wrappers that carry no message of their own. */
  static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null
        && (t instanceof java.util.concurrent.ExecutionException
            || t instanceof UncheckedIOException
            || t instanceof java.lang.reflect.InvocationTargetException
            || t instanceof java.util.concurrent.CompletionException)) {
      t = t.getCause();
    }
    return t;
  }

  static int exitCode(Throwable error) {
    Throwable e = unwrap(error);
    if (e instanceof UserError) {
      return ((UserError) e).exitCode();
    }
    if (e instanceof IllegalArgumentException) {
      return BAD_INPUT;
    }
    return ENVIRONMENT;
  }

  static String describe(Throwable e) {
    Throwable t = unwrap(e);
    String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    message = message.replace('\n', ' ');
    if (t instanceof UserError
        || t instanceof IllegalArgumentException
        || t instanceof CommitStrategyUnavailableException
        || t instanceof CommitStateUnknownException) {
      return message;
    }
    if (t instanceof FileNotFoundException || t instanceof NoSuchFileException) {
      return "missing file: "
          + message
          + ". The table references a file that is gone; restore it"
          + " from backup, or roll the table back to a snapshot that does not reference it"
          + " ('lockstep table check' lists every such reference, 'lockstep table rollback"
          + " --to-snapshot N' rolls back).";
    }
    if (message.regionMatches(true, 0, "cannot reach", 0, 12)) {
      return message; // says what cannot be reached and the fix already
    }
    if (t instanceof ConnectException || rootCause(t) instanceof ConnectException) {
      return "cannot reach a server: "
          + message
          + " ("
          + rootCause(t).getMessage()
          + "). Check the endpoint or connect-string option and that the server is running.";
    }
    if (t instanceof IOException) {
      return t.getClass().getSimpleName() + ": " + message;
    }
    return t.getClass().getSimpleName() + ": " + message + " (--verbose shows the stack trace)";
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }
}
