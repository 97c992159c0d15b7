package dev.lockstep.cli;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.engine.maintenance.TableCheck;
import dev.lockstep.engine.snapshot.DamagedFileException;
import java.io.InterruptedIOException;
import picocli.CommandLine;

/**
 * Turns a table command's failure on a damaged table into one line: the file, what is wrong with it
 * (empty, truncated at byte N, unparsable, missing) and the fix. A {@link DamagedFileException}
 * names the file itself; any other failure of a command on a table (a parser's {@code EOFException}
 * inside a data file, say) is explained by a {@link TableCheck} of the table, read only, which
 * names the first damaged file it finds.
 */
final class TableDamage {

  private TableDamage() {}

  /** The fix for a damaged file of {@code kind}. */
  static String fix(String kind) {
    return kind.equals("snapshot") || kind.equals("schema") || kind.equals("tag")
        ? "Restore it from a backup ('lockstep table check' lists every damaged file)"
        : "Restore it from a backup, or roll the table back to a snapshot that does not"
            + " reference it ('lockstep table rollback --to-snapshot N'; 'lockstep table check'"
            + " lists every damaged file and the snapshots referencing it)";
  }

  /** The one line for {@code failure} of {@code cmd}, or null when it is not about damage. */
  static String explain(Exception failure, CommandLine cmd) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof DamagedFileException d) {
        return d.getMessage() + ". " + fix(d.kind()) + ".";
      }
      if (t instanceof CommitStateUnknownException || t instanceof InterruptedIOException) {
        return null;
      }
    }
    Object command = cmd.getCommand();
    TableTarget target = null;
    try {
      for (var field : command.getClass().getDeclaredFields()) {
        if (field.getType() == TableTarget.class) {
          field.setAccessible(true);
          target = (TableTarget) field.get(command);
        }
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
    if (target == null) {
      return null;
    }
    try (TableTarget.Opened opened = target.open(false)) {
      TableCheck.Report report = new TableCheck(opened.table(), false).run();
      if (report.ok()) {
        report = new TableCheck(opened.table(), true).run();
      }
      if (report.ok()) {
        return null;
      }
      TableCheck.Problem p = report.problems().get(0);
      return p.describe()
          + ". "
          + fix(p.kind())
          + ". ("
          + OneLineErrors.describe(failure).replace(" (--verbose shows the stack trace)", "")
          + (CliLogging.verbose() ? "" : "; --verbose shows the stack trace")
          + ")";
    } catch (Exception e) {
      return null;
    }
  }
}
