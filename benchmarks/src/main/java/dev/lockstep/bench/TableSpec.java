package dev.lockstep.bench;

import java.util.Map;

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

  /**
   * Options both systems get, with the same keys and meaning, so that they write the same files:
   * Avro data and manifest files compressed with deflate (level 6 in both; Lockstep writes only Avro,
   * Paimon's default would be Parquet with zstd), the same write buffer and the same target file size
   * (Paimon's write buffer default is 256 mb, Lockstep's 64 mb). Retry budgets and waits stay at each
   * system's defaults: they are part of what is compared, and the report prints them.
   */
  public static final Map<String, String> SHARED_OPTIONS = Map.of(
      "file.compression", "deflate",
      "write-buffer-size", "64 mb",
      "target-file-size", "128 mb");

  /** Report labels of the two contention tables. */
  public static final String APPEND_LABEL = "append";
  public static final String PK_LABEL = "primary-key, 4 buckets";

  public static TableSpec append(int buckets, boolean writeOnly) {
    return new TableSpec(false, buckets, writeOnly, 5);
  }

  public static TableSpec primaryKey(int buckets, boolean writeOnly, int compactionTrigger) {
    return new TableSpec(true, buckets, writeOnly, compactionTrigger);
  }
}
