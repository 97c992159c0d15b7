package dev.lockstep.engine.predicate;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what a scan and its reads looked at and what pushdown let them skip: manifests (by their
 * partition statistics), data files (by partition and column statistics), Parquet row groups (by
 * the statistics in the file's footer) and Parquet data pages (by the file's column and offset
 * indexes: {@link #pagesSkipped} counts the pages of the requested columns of the row groups read
 * that were never fetched nor decompressed, {@link #pagesRead} every data page the engine's page
 * decoder decompressed). Thread-safe; one object may be shared by a scan and its reads.
 */
public final class ScanMetrics {

  public final AtomicLong manifestsRead = new AtomicLong();
  public final AtomicLong manifestsSkipped = new AtomicLong();
  public final AtomicLong filesPlanned = new AtomicLong();
  public final AtomicLong filesSkipped = new AtomicLong();
  public final AtomicLong filesRead = new AtomicLong();

  /** Of {@link #filesRead}, the primary-key files read raw: on their own, without a merge. */
  public final AtomicLong filesReadRaw = new AtomicLong();

  public final AtomicLong rowGroupsRead = new AtomicLong();
  public final AtomicLong rowGroupsSkipped = new AtomicLong();
  public final AtomicLong pagesRead = new AtomicLong();
  public final AtomicLong pagesSkipped = new AtomicLong();

  @Override
  public String toString() {
    return "manifests read "
        + manifestsRead
        + ", skipped "
        + manifestsSkipped
        + "; files planned "
        + filesPlanned
        + ", skipped "
        + filesSkipped
        + ", read "
        + filesRead
        + " ("
        + filesReadRaw
        + " raw); row groups read "
        + rowGroupsRead
        + ", skipped "
        + rowGroupsSkipped
        + "; pages read "
        + pagesRead
        + ", skipped "
        + pagesSkipped;
  }
}
