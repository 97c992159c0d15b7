package dev.lockstep.cli;

import java.util.List;

/**
 * Ctrl-C (SIGINT) and SIGTERM: the first one interrupts the command's thread, which stops at the
 * next interruptible point, deletes what it wrote and did not commit (unless a commit's outcome is
 * unknown), says what it committed and what not, and ends with exit code 130 (SIGINT) or 143
 * (SIGTERM). A second signal ends the process at once.
 *
 * <p>A handler of {@code sun.misc.Signal} (module jdk.unsupported) rather than a shutdown hook: a
 * hook runs only once the JVM is already exiting, while the operation thread must still be able to
 * finish or withdraw its commit, and a hook cannot tell SIGINT from SIGTERM.
 */
final class Interruption {

  private static volatile int signal;

  private Interruption() {}

  /** Installs the handlers for {@code operation}, the thread that runs the command. */
  static void install(Thread operation) {
    for (String name : List.of("INT", "TERM")) {
      try {
        sun.misc.Signal.handle(
            new sun.misc.Signal(name),
            s -> {
              if (signal != 0) {
                Runtime.getRuntime().halt(128 + s.getNumber()); // the second one: stop now
              }
              signal = s.getNumber();
              operation.interrupt();
            });
      } catch (IllegalArgumentException | UnsupportedOperationException unavailable) {
        // This platform has no such signal (or it is reserved): the default handling stays.
      }
    }
  }

  /** Whether a signal asked the command to stop. */
  static boolean requested() {
    return signal != 0;
  }

  /** SIGINT or SIGTERM. */
  static String name() {
    return signal == 15 ? "SIGTERM" : "SIGINT";
  }

  /** 130 after SIGINT, 143 after SIGTERM. */
  static int exitCode() {
    return 128 + signal;
  }
}
