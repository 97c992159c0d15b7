package dev.lockstep.engine.maintenance;

import java.util.List;

/**
 * What one orphan-file removal did (or, in a dry run, would do).
 *
 * @param removed the orphan files, paths relative to the table directory, with sizes
 * @param scannedFiles files looked at under the table directory
 * @param referencedFiles files that some snapshot references (never removed)
 * @param youngerThanGuard unreferenced files kept because they are younger than {@code older-than}
 *     (in-flight writes among them)
 * @param dryRun true when nothing was deleted
 * @param unreadable the snapshots whose files could not all be read (each with the damage): the
 *     files they name are unknown
 * @param keptUnprovable unreferenced files kept because an unreadable snapshot might name them
 */
public record OrphanReport(
    List<RemovedFile> removed,
    long scannedFiles,
    long referencedFiles,
    long youngerThanGuard,
    boolean dryRun,
    List<String> unreadable,
    long keptUnprovable) {

  public OrphanReport {
    removed = List.copyOf(removed);
    unreadable = List.copyOf(unreadable);
  }

  public OrphanReport(
      List<RemovedFile> removed,
      long scannedFiles,
      long referencedFiles,
      long youngerThanGuard,
      boolean dryRun) {
    this(removed, scannedFiles, referencedFiles, youngerThanGuard, dryRun, List.of(), 0);
  }

  /** One removed (or, in a dry run, removable) file. */
  public record RemovedFile(String path, long bytes) {}

  public long removedBytes() {
    return removed.stream().mapToLong(RemovedFile::bytes).sum();
  }
}
