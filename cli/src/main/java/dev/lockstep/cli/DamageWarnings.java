package dev.lockstep.cli;

import dev.lockstep.engine.snapshot.SkippedDamage;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one warning line of a table command that succeeded past damage it did not need (issue 25):
 * the damaged files its table object met and skipped ({@link SkippedDamage}, gathered when the
 * table closes), what is wrong with each, and the command that lists and explains them all. Printed
 * on standard error after the command's own output, only when it exits 0 (a failure's one line
 * names its own file). Costs nothing beyond what the command read anyway, so it names only the
 * damage met; {@code lockstep table check} reads everything.
 */
final class DamageWarnings {

  /** Files named in full in the line; the rest are counted. */
  private static final int NAMED = 3;

  private static final ThreadLocal<Map<String, SkippedDamage.Entry>> MET =
      ThreadLocal.withInitial(LinkedHashMap::new);

  private DamageWarnings() {}

  /** Forgets what an earlier command met (one command line per call of {@code execute}). */
  static void reset() {
    MET.get().clear();
  }

  /** Gathers what {@code table}'s operations skipped; called when it closes. */
  static void collect(FileStoreTable table) {
    for (SkippedDamage.Entry e : table.snapshotManager().skippedDamage().entries()) {
      MET.get().putIfAbsent(e.file(), e);
    }
  }

  /** The warning line, or null when nothing was skipped. */
  static String line() {
    List<SkippedDamage.Entry> met = new ArrayList<>(MET.get().values());
    if (met.isEmpty()) {
      return null;
    }
    StringBuilder sb =
        new StringBuilder(
            "lockstep: warning: damaged file(s) met and skipped, not needed by this command: ");
    for (int i = 0; i < Math.min(NAMED, met.size()); i++) {
      sb.append(i == 0 ? "" : "; ").append(met.get(i).describe());
    }
    if (met.size() > NAMED) {
      sb.append("; and ").append(met.size() - NAMED).append(" more damaged file(s)");
    }
    return sb.append(
            ". Restore it from a backup; 'lockstep table check' lists every damaged file and"
                + " the snapshots referencing it.")
        .toString();
  }

  /** Prints {@link #line()} on {@code err} when there is one. */
  static void print(PrintWriter err) {
    String line = line();
    if (line != null) {
      err.println(line);
      err.flush();
    }
  }
}
