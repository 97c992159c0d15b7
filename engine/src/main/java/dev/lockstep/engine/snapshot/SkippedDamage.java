package dev.lockstep.engine.snapshot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Damage that the operations of one table object met and went past because they did not need the
 * file (issue 25: "damage in a snapshot that no operation needs is reported as a warning and does
 * not block commits"). Nothing here costs a read of its own: each entry is a file an operation read
 * or listed anyway and found empty, truncated, unparsable or missing, then skipped:
 *
 * <ul>
 *   <li>the snapshot below the latest, read to prove the latest ({@link SnapshotManager#latestId}),
 *       the earliest ({@link SnapshotManager#earliestId}) or a commit's base;
 *   <li>a snapshot id missing from the middle of a listing these already take (from the {@code
 *       EARLIEST} hint on, as {@code table check} counts it; the hint is read only when a listing
 *       shows a gap);
 *   <li>a snapshot the exactly-once check passed when a readable one above it answered;
 *   <li>a snapshot (or a file it names) that orphan removal or expiration could not read and worked
 *       around.
 * </ul>
 *
 * <p>Damage an operation needs is not recorded here: it fails with a {@link DamagedFileException}
 * (or a {@code FileNotFoundException}) naming the file. Damage nothing read is not found either (a
 * fresh commit user reads no older snapshot): {@code lockstep table check} reads everything.
 *
 * <p>Each file is logged once per table object, at WARN, on this class's logger; {@link #entries()}
 * returns them for a caller that reports them itself (the CLI prints one line). Thread-safe.
 */
public final class SkippedDamage {

  private static final Logger LOG = LoggerFactory.getLogger(SkippedDamage.class);

  /** One damaged file: its kind (snapshot, manifest list, manifest), path and damage. */
  public record Entry(String kind, String file, String damage) {
    /** {@code <kind> <file> is <damage>}. */
    public String describe() {
      return kind + " " + file + " is " + damage;
    }
  }

  private final Map<String, Entry> byFile = new LinkedHashMap<>();

  /** Records a file that did not parse, and was not needed. */
  public void note(DamagedFileException damaged) {
    add(new Entry(damaged.kind(), damaged.file(), damaged.damage()));
  }

  /** Records a file of {@code kind} that is missing, and was not needed. */
  public void noteMissing(String kind, String file) {
    add(new Entry(kind, file, "missing"));
  }

  private void add(Entry entry) {
    synchronized (byFile) {
      if (byFile.putIfAbsent(entry.file(), entry) != null) {
        return;
      }
    }
    LOG.warn(
        "{}; not needed here, skipped ('lockstep table check' lists every damaged file)",
        entry.describe());
  }

  /** Whether {@code file} was recorded already. */
  boolean contains(String file) {
    synchronized (byFile) {
      return byFile.containsKey(file);
    }
  }

  /** Every file recorded so far, in the order met. */
  public List<Entry> entries() {
    synchronized (byFile) {
      return new ArrayList<>(byFile.values());
    }
  }
}
