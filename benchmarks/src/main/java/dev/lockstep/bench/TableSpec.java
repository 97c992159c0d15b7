package dev.lockstep.bench;

import java.util.Map;

/**
 * The table a workload needs. Columns are always {@code k INT, v BIGINT, s STRING}; a primary-key
 * table has key {@code k}.
 *
 * @param primaryKey whether {@code k} is the primary key (deduplicate merge engine)
 * @param buckets fixed buckets per partition
 * @param writeOnly writers do not compact or expire (a dedicated job would)
 * @param compactionTrigger sorted runs that trigger compaction ({@code
 *     num-sorted-run.compaction-trigger})
 */
public record TableSpec(boolean primaryKey, int buckets, boolean writeOnly, int compactionTrigger) {

  /**
   * The data file format both systems write: {@code avro} (default; deflate), so that the
   * side-by-side tables stay comparable with the earlier runs, or {@code parquet} (zstd, both
   * systems' defaults for new tables) with {@code -Dlockstep.bench.file-format=parquet}.
   */
  public static final String FILE_FORMAT = System.getProperty("lockstep.bench.file-format", "avro");

  /** The codec of {@link #FILE_FORMAT}'s data files: deflate for Avro, zstd for Parquet. */
  public static final String FILE_COMPRESSION = FILE_FORMAT.equals("avro") ? "deflate" : "zstd";

  /**
   * Options both systems get, with the same keys and meaning, so that they write the same files:
   * data files of {@link #FILE_FORMAT} (Avro with deflate, level 6 in both, unless asked otherwise;
   * manifests are Avro with deflate in both), the same write buffer and the same target file size
   * (Paimon's write buffer default is 256 mb, Lockstep's 64 mb). Retry budgets and waits stay at
   * each system's defaults: they are part of what is compared, and the report prints them.
   */
  public static final Map<String, String> SHARED_OPTIONS =
      Map.of(
          "file.format",
          FILE_FORMAT,
          "file.compression",
          FILE_COMPRESSION,
          "write-buffer-size",
          "64 mb",
          "target-file-size",
          "128 mb");

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
