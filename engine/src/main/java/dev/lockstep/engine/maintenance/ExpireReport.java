package dev.lockstep.engine.maintenance;

import java.util.List;

/**
 * What one snapshot-expiration run did (or, in a dry run, would do).
 *
 * @param firstExpired the oldest snapshot expired, or 0 when none
 * @param lastExpired the newest snapshot expired, or 0 when none
 * @param earliestAfter the earliest snapshot after the run (0 for a table without snapshots)
 * @param deletedDataFiles data files deleted (paths relative to the table directory)
 * @param deletedManifests manifest files and manifest lists deleted (names in {@code manifest/})
 * @param deletedBytes bytes of the deleted data files and manifests
 * @param dryRun true when nothing was deleted
 */
public record ExpireReport(
    long firstExpired,
    long lastExpired,
    long earliestAfter,
    List<String> deletedDataFiles,
    List<String> deletedManifests,
    long deletedBytes,
    boolean dryRun) {

  public ExpireReport {
    deletedDataFiles = List.copyOf(deletedDataFiles);
    deletedManifests = List.copyOf(deletedManifests);
  }

  static ExpireReport nothing(long earliest, boolean dryRun) {
    return new ExpireReport(0, 0, earliest, List.of(), List.of(), 0, dryRun);
  }

  /** Snapshots expired by this run. */
  public long expiredSnapshots() {
    return firstExpired == 0 ? 0 : lastExpired - firstExpired + 1;
  }
}
