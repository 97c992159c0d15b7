package dev.lockstep.flink;

/**
 * The connector's own option keys. Every other key (store, lock, commit strategy, table options
 * such as {@code bucket} or {@code write-only}) passes through to the engine unchanged.
 */
public final class LockstepFlinkOptions {

  /** Catalog type and table connector identifier. */
  public static final String IDENTIFIER = "lockstep";

  /** The warehouse directory: {@code file:///...}, {@code s3://bucket/path}, {@code hdfs://...}. */
  public static final String WAREHOUSE = "warehouse";

  /** {@code 'connector' = 'lockstep'} tables: the database in the warehouse (default: Flink's). */
  public static final String DATABASE = "database";

  /**
   * {@code 'connector' = 'lockstep'} tables: the table in the warehouse (default: Flink's name).
   */
  public static final String TABLE = "table";

  /**
   * The commit user of a sink: snapshots carry (commit user, checkpoint id), and a re-commit of a
   * pair already in a snapshot is a no-op. Default: a random id fixed when the job graph is built,
   * so it stays the same across failovers of that job; a committable restored from a savepoint
   * carries the user it was written with. Two jobs writing one table must have different users.
   */
  public static final String COMMIT_USER = "commit.user";

  /** Writer parallelism of the table sink (default: the input's). */
  public static final String SINK_PARALLELISM = "sink.parallelism";

  /**
   * Batch reads: the snapshot to read (default: the latest when the job starts). Streaming reads:
   * the first snapshot of {@code scan.mode = from-snapshot} (the engine's option; it passes
   * through).
   */
  public static final String SCAN_SNAPSHOT_ID = "scan.snapshot-id";

  /** Streaming reads: how often the source looks for new snapshots (Paimon's key). */
  public static final String DISCOVERY_INTERVAL = "continuous.discovery-interval";

  public static final java.time.Duration DISCOVERY_INTERVAL_DEFAULT =
      java.time.Duration.ofSeconds(10);

  /** Catalog option: the database {@code listDatabases} starts with. */
  public static final String DEFAULT_DATABASE = "default-database";

  public static final String DEFAULT_DATABASE_DEFAULT = "default";

  private LockstepFlinkOptions() {}
}
