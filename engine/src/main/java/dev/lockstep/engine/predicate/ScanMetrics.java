package dev.lockstep.engine.predicate;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what a scan and its reads looked at and what pushdown let them skip: manifests (by their
 * partition statistics), data files (by partition and column statistics) and Parquet row groups (by
 * the statistics in the file's footer). Thread-safe; one object may be shared by a scan and its
 * reads.
 */
public final class ScanMetrics {

  public final AtomicLong manifestsRead = new AtomicLong();
  public final AtomicLong manifestsSkipped = new AtomicLong();
  public final AtomicLong filesPlanned = new AtomicLong();
  public final AtomicLong filesSkipped = new AtomicLong();
  public final AtomicLong filesRead = new AtomicLong();
  public final AtomicLong rowGroupsRead = new AtomicLong();
  public final AtomicLong rowGroupsSkipped = new AtomicLong();

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
        + "; row groups read "
        + rowGroupsRead
        + ", skipped "
        + rowGroupsSkipped;
  }
}
