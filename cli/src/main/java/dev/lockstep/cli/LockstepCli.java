package dev.lockstep.cli;

import dev.lockstep.options.Durations;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code lockstep} command. Every failure a user can cause ends in one line on standard error
 * that names the file or option and the fix, and a non-zero exit code:
 *
 * <ul>
 *   <li>0: done, every invariant or declared capability holds;
 *   <li>1: the run finished and found a broken invariant or capability;
 *   <li>2: bad input (unknown option, bad value, unknown lock type or scheme, a table, column or
 *       tag that does not exist);
 *   <li>3: an environment error (unreachable server, corrupt or missing table file).
 * </ul>
 */
@Command(
    name = "lockstep",
    mixinStandardHelpOptions = true,
    versionProvider = LockstepCli.Version.class,
    description = "Safe concurrent snapshot commits on any storage.",
    subcommands = {
      StressCommand.class,
      ConformanceCommand.class,
      TableCommand.class,
      AutoComplete.GenerateCompletion.class
    })
public final class LockstepCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(
      names = CliLogging.VERBOSE,
      scope = CommandLine.ScopeType.INHERIT,
      description = "Show client libraries' logging (INFO and up) and the stack trace of an error")
  boolean verbose;

  public static void main(String[] args) {
    Interruption.install(Thread.currentThread());
    CliLogging.configure(CliLogging.requested(args));
    int code = execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
    System.exit(Interruption.requested() ? Interruption.exitCode() : code);
  }

  /** Runs the command line and returns the exit code (for tests). */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CliLogging.verbose(CliLogging.requested(args));
    CommandLine cli = new CommandLine(new LockstepCli());
    cli.registerConverter(Duration.class, LockstepCli::duration);
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler(new OneLineErrors());
    cli.setParameterExceptionHandler(new OneLineErrors());
    DamageWarnings.reset();
    int code = cli.execute(args);
    if (code == 0) {
      DamageWarnings.print(err); // damage a successful table command went past
    }
    return code;
  }

  /**
   * Durations on the command line, as options write them ({@code 10s}, {@code 30 min}, {@code 1d}).
   */
  static Duration duration(String text) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(
          "'" + text + "' is not a duration; write for" + " example 10s, 30 min, 1d");
    }
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The version from the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = LockstepCli.class.getPackage().getImplementationVersion();
      return new String[] {"lockstep " + (v == null ? "0.1.0-SNAPSHOT" : v)};
    }
  }
}
