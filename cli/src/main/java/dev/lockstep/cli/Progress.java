package dev.lockstep.cli;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress of long work: a bar redrawn in place when writing to a terminal, a plain line every few
 * seconds otherwise (logs and pipes get no control characters).
 */
final class Progress {

  private static final long PLAIN_EVERY_NANOS = 5_000_000_000L;
  private final PrintWriter out;
  private final String what;
  private final long total;
  private final boolean terminal;
  private final long started = System.nanoTime();
  private long lastPrinted;

  Progress(PrintWriter out, String what, long total, boolean terminal) {
    this.out = out;
    this.what = what;
    this.total = total;
    this.terminal = terminal;
  }

  /** Whether standard output is a terminal. */
  static boolean stdoutIsTerminal() {
    return System.console() != null && !"dumb".equals(System.getenv("TERM"));
  }

  synchronized void update(long done) {
    long now = System.nanoTime();
    double seconds = Math.max(1e-9, (now - started) / 1e9);
    if (terminal) {
      if (now - lastPrinted < 100_000_000L && done < total) {
        return;
      }
      int width = 30;
      int filled = total == 0 ? width : (int) Math.min(width, done * width / total);
      out.print(
          String.format(
              Locale.ROOT,
              "\r  [%s%s] %d/%d %s  %.1f/s ",
              "#".repeat(filled),
              "-".repeat(width - filled),
              done,
              total,
              what,
              done / seconds));
      out.flush();
    } else if (now - lastPrinted >= PLAIN_EVERY_NANOS) {
      out.println(
          String.format(Locale.ROOT, "  %d/%d %s (%.1f/s)", done, total, what, done / seconds));
      out.flush();
    } else {
      return;
    }
    lastPrinted = now;
  }

  synchronized void finish(long done) {
    lastPrinted = 0;
    if (terminal) {
      update(done);
      out.println();
    }
    out.flush();
  }
}
