package dev.lockstep.bench;

/**
 * The table a workload needs. Columns are always {@code k INT, v BIGINT, s STRING}; a primary-key table
 * has key {@code k}.
 *
 * @param primaryKey whether {@code k} is the primary key (deduplicate merge engine)
 * @param buckets fixed buckets per partition
 * @param writeOnly writers do not compact or expire (a dedicated job would)
 * @param compactionTrigger sorted runs that trigger compaction ({@code num-sorted-run.compaction-trigger})
 */
public record TableSpec(boolean primaryKey, int buckets, boolean writeOnly, int compactionTrigger) {

  public static TableSpec append(int buckets, boolean writeOnly) {
    return new TableSpec(false, buckets, writeOnly, 5);
  }

  public static TableSpec primaryKey(int buckets, boolean writeOnly, int compactionTrigger) {
    return new TableSpec(true, buckets, writeOnly, compactionTrigger);
  }
}
