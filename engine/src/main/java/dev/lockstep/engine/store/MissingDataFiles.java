package dev.lockstep.engine.store;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Data files that a read in this JVM found missing, per table directory, so that a commit in the
 * same JVM does not carry a reference to one forward unseen (issue 25): {@code TableRead} notes a
 * file it could not open and that no longer exists; {@code TableCommit} refuses a commit whose base
 * snapshot still references a noted file that is still missing, and forgets a file found again
 * (restored). Other processes learn of missing files from a table check, which reads every
 * reference without writing.
 */
public final class MissingDataFiles {

  private static final Map<String, Set<String>> BY_TABLE = new ConcurrentHashMap<>();

  private MissingDataFiles() {}

  /** Notes {@code <partition>/bucket-<n>/<file>} of {@code table} as missing. */
  public static void note(TableStore table, String relativePath) {
    BY_TABLE
        .computeIfAbsent(table.path().toString(), k -> ConcurrentHashMap.newKeySet())
        .add(relativePath);
  }

  /** The files of {@code table} noted missing, as paths relative to its directory. */
  public static Set<String> of(TableStore table) {
    Set<String> files = BY_TABLE.get(table.path().toString());
    return files == null ? Set.of() : Set.copyOf(files);
  }

  /** Forgets a file that exists again. */
  public static void forget(TableStore table, String relativePath) {
    Set<String> files = BY_TABLE.get(table.path().toString());
    if (files != null) {
      files.remove(relativePath);
    }
  }
}
