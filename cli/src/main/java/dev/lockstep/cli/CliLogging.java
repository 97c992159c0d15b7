package dev.lockstep.cli;

import java.util.Arrays;

/**
 * What the command line lets libraries log (issue 25). By default client libraries (ZooKeeper,
 * Curator, HikariCP, the AWS SDK, Hadoop) log nothing: a dead ZooKeeper otherwise prints a WARN and
 * a stack trace for every reconnect before the one line that says what is wrong. Lockstep's own
 * warnings still show. {@code --verbose} lets every logger through from INFO up, on standard error,
 * and adds the stack trace to the one-line error.
 *
 * <p>The levels are slf4j-simple's system properties, set before the first logger exists; a value
 * given with {@code -D} wins.
 */
final class CliLogging {

  static final String VERBOSE = "--verbose";
  private static final String PREFIX = "org.slf4j.simpleLogger.";

  private static volatile boolean verbose;

  private CliLogging() {}

  /** Whether the command line asks for {@value #VERBOSE} (anywhere: it is inherited). */
  static boolean requested(String[] args) {
    return Arrays.asList(args).contains(VERBOSE);
  }

  /** Sets the log levels; call in {@code main} before anything logs. */
  static void configure(boolean verbose) {
    setIfAbsent("logFile", "System.err");
    if (verbose) {
      setIfAbsent("defaultLogLevel", "info");
    } else {
      setIfAbsent("defaultLogLevel", "off");
      setIfAbsent("log.dev.lockstep", "warn");
      // Damage a command went past: the command prints one line of its own (DamageWarnings).
      setIfAbsent("log.dev.lockstep.engine.snapshot.SkippedDamage", "off");
    }
  }

  /** Whether this run is verbose (the one-line error then comes with its stack trace). */
  static boolean verbose() {
    return verbose;
  }

  static void verbose(boolean on) {
    verbose = on;
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(PREFIX + key) == null) {
      System.setProperty(PREFIX + key, value);
    }
  }
}
