package dev.lockstep.engine.store;

import dev.lockstep.engine.predicate.StatsMode;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.Options;
import dev.lockstep.options.ValueParsers;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The engine's options, parsed once: catalog options overlaid with the table's own options (table
 * wins). Keys match Apache Paimon where it has one.
 */
public record CoreOptions(
    int bucket,
    boolean writeOnly,
    int compactionTrigger,
    int stopTrigger,
    int compactionMaxThreads,
    int writeFlushThreads,
    int numLevels,
    long writeBufferBytes,
    long targetFileBytes,
    int commitMaxRetries,
    Duration commitTimeout,
    Duration commitMinRetryWait,
    Duration commitMaxRetryWait,
    int manifestMergeMinCount,
    String fileFormat,
    String fileCompression,
    long parquetBlockSize,
    int parquetPageSize,
    Options all) {

  public static final String BUCKET = "bucket";
  public static final int BUCKET_DEFAULT = 1;

  /** Turns compaction (and, later, snapshot expiration) off in a writer. */
  public static final String WRITE_ONLY = "write-only";

  public static final String COMPACTION_TRIGGER = "num-sorted-run.compaction-trigger";
  public static final int COMPACTION_TRIGGER_DEFAULT = 5;

  /** Default: compaction trigger + 3. */
  public static final String STOP_TRIGGER = "num-sorted-run.stop-trigger";

  public static final String COMPACTION_MAX_THREAD = "compaction.max.thread";
  public static final int COMPACTION_MAX_THREAD_DEFAULT = 1;

  /**
   * Buckets a {@code TableWrite} flushes at once at the end of a batch, its own thread included;
   * default: the number of processors, at most {@link #WRITE_FLUSH_THREADS_MAX_DEFAULT}.
   */
  public static final String WRITE_FLUSH_THREADS = "write.flush-threads";

  public static final int WRITE_FLUSH_THREADS_MAX_DEFAULT = 4;

  /** Default: compaction trigger + 1. */
  public static final String NUM_LEVELS = "num-levels";

  public static final String WRITE_BUFFER_SIZE = "write-buffer-size";
  public static final String WRITE_BUFFER_SIZE_DEFAULT = "64 mb";
  public static final String TARGET_FILE_SIZE = "target-file-size";
  public static final String TARGET_FILE_SIZE_DEFAULT = "128 mb";

  /**
   * Snapshot conflicts one commit survives; 10 as in docs/architecture.md#design-5 and Paimon. With
   * fair turns a commit loses about one race per other committer, so tables with more than about 8
   * committers that commit in a tight loop should raise it above their committer count (or rely on
   * {@link #COMMIT_TIMEOUT}).
   */
  public static final String COMMIT_MAX_RETRIES = "commit.max-retries";

  public static final int COMMIT_MAX_RETRIES_DEFAULT = 10;

  /** The time one commit may take, from its first attempt, before it gives up; default: none. */
  public static final String COMMIT_TIMEOUT = "commit.timeout";

  /** The poll while waiting for a race's winner to be readable, and the first backoff. */
  public static final String COMMIT_MIN_RETRY_WAIT = "commit.min-retry-wait";

  public static final Duration COMMIT_MIN_RETRY_WAIT_DEFAULT = Duration.ofMillis(1);

  /** The longest backoff, after conflicts under a contended lock. */
  public static final String COMMIT_MAX_RETRY_WAIT = "commit.max-retry-wait";

  public static final Duration COMMIT_MAX_RETRY_WAIT_DEFAULT = Duration.ofMillis(200);

  /**
   * Lock-free strategies: committers to one table in one JVM take turns instead of racing each
   * other (engine README, "In-process turns").
   */
  public static final String COMMIT_IN_PROCESS_TURNS = "commit.in-process-turns";

  public static final String MANIFEST_MERGE_MIN_COUNT = "manifest.merge-min-count";
  public static final int MANIFEST_MERGE_MIN_COUNT_DEFAULT = 30;
  public static final String MANIFEST_TARGET_FILE_SIZE = "manifest.target-file-size";
  public static final String MANIFEST_TARGET_FILE_SIZE_DEFAULT = "8 mb";
  public static final String MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE =
      "manifest.full-compaction-threshold-size";
  public static final String MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE_DEFAULT = "16 mb";

  /** Threads (the planning one included) that read the manifests of one plan; Paimon's key. */
  public static final String SCAN_MANIFEST_PARALLELISM = "scan.manifest.parallelism";

  /**
   * {@code parquet} or {@code avro}: the format of new data files. Stored with a table when it is
   * created ({@code parquet} unless the table's or the catalog's options name one); a table stored
   * without it (created before Parquet) writes {@code avro}.
   */
  public static final String FILE_FORMAT = "file.format";

  /** The format a new table is stored with when no option names one. */
  public static final String FILE_FORMAT_NEW_TABLE = "parquet";

  /** The format of a table stored without {@link #FILE_FORMAT}: every table created before it. */
  public static final String FILE_FORMAT_STORED_WITHOUT = "avro";

  /** The codec of new data files; default {@code zstd} for Parquet, {@code deflate} for Avro. */
  public static final String FILE_COMPRESSION = "file.compression";

  public static final String PARQUET_BLOCK_SIZE = "parquet.block.size";
  public static final String PARQUET_BLOCK_SIZE_DEFAULT = "128 mb";
  public static final String PARQUET_PAGE_SIZE = "parquet.page.size";
  public static final String PARQUET_PAGE_SIZE_DEFAULT = "1 mb";
  public static final String MERGE_ENGINE = "merge-engine";

  /** What the manifests keep of each column's values per data file (Paimon's key). */
  public static final String METADATA_STATS_MODE = "metadata.stats-mode";

  /** The per-column override of {@link #METADATA_STATS_MODE}: {@code fields.<name>.stats-mode}. */
  public static final String FIELDS_PREFIX = "fields.";

  public static final String STATS_MODE_SUFFIX = ".stats-mode";

  /** Columns (comma separated) that order the rows of one key before arrival does. */
  public static final String SEQUENCE_FIELD = "sequence.field";

  static final ConfigOption<Integer> BUCKET_OPTION =
      ConfigOption.key(BUCKET)
          .intType()
          .defaultValue(BUCKET_DEFAULT)
          .require(
              b -> b >= 1 || b == -1, "at least 1, or -1 for dynamic buckets (primary-key tables)")
          .withDescription(
              "fixed buckets per partition; a row goes to `hash(primary key)` (append"
                  + " tables: `hash(row)`) mod `bucket`. `-1`: dynamic buckets (primary-key tables"
                  + " only): a committed key-hash index per partition routes each key, and new buckets"
                  + " open as buckets fill (see the `dynamic-bucket.*` options and \"Dynamic buckets\")."
                  + " Stored with the table when it is created (from the"
                  + " table's or the catalog's options); a catalog default never changes a stored table, and"
                  + " a table object whose own options ask for another count refuses to write");
  static final ConfigOption<Boolean> WRITE_ONLY_OPTION =
      ConfigOption.key(WRITE_ONLY)
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "writers never compact (primary-key and append tables) and never expire"
                  + " snapshots; run a `TableCompactor` or"
                  + " `maintenance.CompactionJob`");
  static final ConfigOption<Integer> COMPACTION_TRIGGER_OPTION =
      ConfigOption.key(COMPACTION_TRIGGER)
          .intType()
          .defaultValue(COMPACTION_TRIGGER_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription("sorted runs of a bucket that start a compaction");
  static final ConfigOption<Integer> STOP_TRIGGER_OPTION =
      ConfigOption.key(STOP_TRIGGER)
          .intType()
          .noDefaultValue()
          .withDefaultText("trigger + 3")
          .withDescription("above this many sorted runs, a flush waits for the running compaction");
  static final ConfigOption<Integer> COMPACTION_MAX_THREAD_OPTION =
      ConfigOption.key(COMPACTION_MAX_THREAD)
          .intType()
          .defaultValue(COMPACTION_MAX_THREAD_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription(
              "background compaction threads per `TableWrite` (and per" + " `TableCompactor`)");
  static final ConfigOption<Integer> WRITE_FLUSH_THREADS_OPTION =
      ConfigOption.key(WRITE_FLUSH_THREADS)
          .intType()
          .noDefaultValue()
          .require(t -> t >= 1, "at least 1 (1 flushes in the writing thread only)")
          .withDefaultText("processors, at most 4")
          .withDescription(
              "buckets a `TableWrite` flushes at once at the end of a batch, its own"
                  + " thread included; 1 flushes in the writing thread only");
  static final ConfigOption<Integer> NUM_LEVELS_OPTION =
      ConfigOption.key(NUM_LEVELS)
          .intType()
          .noDefaultValue()
          .withDefaultText("trigger + 1")
          .withDescription("LSM levels; full compactions write to the last");
  static final ConfigOption<Long> WRITE_BUFFER_SIZE_OPTION =
      ConfigOption.key(WRITE_BUFFER_SIZE)
          .sizeType()
          .defaultValue(ValueParsers.size(WRITE_BUFFER_SIZE_DEFAULT))
          .require(b -> b >= 1024, "at least 1 kb")
          .withDescription(
              "bytes of the write buffers of all primary-key buckets of one `TableWrite`"
                  + " together (rows serialized into reused pages, every write of the batch,"
                  + " overwritten keys included; as Paimon's writer-wide memory pool): a write"
                  + " that reaches it"
                  + " sorts and flushes the largest buffer, then the next largest while the sum"
                  + " is still at it. Append tables stream into files and buffer nothing");
  static final ConfigOption<Long> TARGET_FILE_SIZE_OPTION =
      ConfigOption.key(TARGET_FILE_SIZE)
          .sizeType()
          .defaultValue(ValueParsers.size(TARGET_FILE_SIZE_DEFAULT))
          .require(b -> b >= 1024, "at least 1 kb")
          .withDescription("data files roll at this size");
  static final ConfigOption<Integer> COMMIT_MAX_RETRIES_OPTION =
      ConfigOption.key(COMMIT_MAX_RETRIES)
          .intType()
          .defaultValue(COMMIT_MAX_RETRIES_DEFAULT)
          .require(r -> r >= 0, "0 or more")
          .withDescription(
              "snapshot conflicts one commit survives before `CommitFailedException`"
                  + " (docs/architecture.md#design-5, as Paimon); raise it above the number of committers racing in a tight loop"
                  + " (see \"Retries after a snapshot conflict\")");
  static final ConfigOption<Duration> COMMIT_TIMEOUT_OPTION =
      ConfigOption.key(COMMIT_TIMEOUT)
          .durationType()
          .noDefaultValue()
          .withDefaultText("none")
          .require(Requirement.positive())
          .withDescription(
              "a commit still losing snapshot races after this long gives up"
                  + " (`CommitFailedException`, nothing committed)");
  static final ConfigOption<Duration> COMMIT_MIN_RETRY_WAIT_OPTION =
      ConfigOption.key(COMMIT_MIN_RETRY_WAIT)
          .durationType()
          .defaultValue(COMMIT_MIN_RETRY_WAIT_DEFAULT)
          .withDescription(
              "after a conflict without lock contention, the retry waits until the winner's"
                  + " snapshot is readable, polling at this interval (at once when it is); under a"
                  + " contended lock, the first backoff");
  static final ConfigOption<Duration> COMMIT_MAX_RETRY_WAIT_OPTION =
      ConfigOption.key(COMMIT_MAX_RETRY_WAIT)
          .durationType()
          .defaultValue(COMMIT_MAX_RETRY_WAIT_DEFAULT)
          .withDescription(
              "the longest backoff under a contended lock (doubling from"
                  + " `commit.min-retry-wait`)");
  static final ConfigOption<Boolean> COMMIT_IN_PROCESS_TURNS_OPTION =
      ConfigOption.key(COMMIT_IN_PROCESS_TURNS)
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "lock-free strategies: committers to the same table in one JVM take turns (an"
                  + " in-process lock from an attempt's catch-up to its publish, waited for while it"
                  + " changes hands at least once per `commit.max-retry-wait`), so they never lose a"
                  + " snapshot race to each other;"
                  + " committers in other processes still race through the store's primitive (see"
                  + " \"In-process turns\")");
  static final ConfigOption<Integer> MANIFEST_MERGE_MIN_COUNT_OPTION =
      ConfigOption.key(MANIFEST_MERGE_MIN_COUNT)
          .intType()
          .defaultValue(MANIFEST_MERGE_MIN_COUNT_DEFAULT)
          .require(Requirement.atLeast(2))
          .withDescription(
              "the newest manifests below `manifest.target-file-size` are merged once a run of"
                  + " this many of them forms (or they add up to the target size); a run gathers,"
                  + " from the newest backwards, only manifests holding at most twice its entries"
                  + " so far, so an older, larger manifest is not rewritten to add a few entries"
                  + " (docs/engine.md \"Manifest merging\")");
  static final ConfigOption<Integer> SCAN_MANIFEST_PARALLELISM_OPTION =
      ConfigOption.key(SCAN_MANIFEST_PARALLELISM)
          .intType()
          .noDefaultValue()
          .require(Requirement.atLeast(1))
          .withDefaultText("processors, at least 4")
          .withDescription(
              "threads (the planning thread included) that read the manifests of one plan, scan"
                  + " or commit check; their entries are applied in order. 1 reads them one after"
                  + " the other");
  static final ConfigOption<Long> MANIFEST_TARGET_FILE_SIZE_OPTION =
      ConfigOption.key(MANIFEST_TARGET_FILE_SIZE)
          .sizeType()
          .defaultValue(ValueParsers.size(MANIFEST_TARGET_FILE_SIZE_DEFAULT))
          .require(b -> b >= 1024, "at least 1 kb")
          .withDescription(
              "merged manifests roll at this size; a manifest this large is never rewritten by"
                  + " a minor merge");
  static final ConfigOption<Long> MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE_OPTION =
      ConfigOption.key(MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE)
          .sizeType()
          .defaultValue(ValueParsers.size(MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE_DEFAULT))
          .require(b -> b >= 1024, "at least 1 kb")
          .withDescription(
              "once the manifests that are small or hold deleted entries add up to this and hold"
                  + " a deleted entry, a merge drops every deleted entry: manifests naming a deleted"
                  + " file are rewritten, the others kept");
  static final ConfigOption<String> FILE_FORMAT_OPTION =
      ConfigOption.key(FILE_FORMAT)
          .stringType()
          .noDefaultValue()
          .withDefaultText("`parquet` (new tables)")
          .require(f -> f.equals("parquet") || f.equals("avro"), "'parquet' or 'avro'")
          .withDescription(
              "the format of new data files: `parquet` or `avro` (manifests are Avro"
                  + " either way). Stored with the table when it is created (`parquet` unless the table's or"
                  + " the catalog's options name one); a table stored without it, created before Parquet"
                  + " data files, writes `avro`. Changing it (for example with `copyWithOptions`) changes"
                  + " only new files: a table reads files of both formats, by their extension");
  static final ConfigOption<String> FILE_COMPRESSION_OPTION =
      ConfigOption.key(FILE_COMPRESSION)
          .stringType()
          .noDefaultValue()
          .withDefaultText("`zstd` (Parquet), `deflate` (Avro)")
          .require(
              c -> List.of("zstd", "lz4", "snappy", "deflate", "none", "null").contains(c),
              "one of zstd, lz4, snappy, deflate, none")
          .withDescription(
              "the codec of new data files: `zstd` (zstd-jni; level 1 in Parquet, 3 in Avro),"
                  + " `lz4` (Parquet `LZ4_RAW`, pure Java; Parquet only), `snappy` (snappy-java), `deflate` (Avro's"
                  + " deflate, Parquet's `GZIP`) or `none` (also `null`). Manifests are deflated Avro"
                  + " unless this is `none`");
  static final ConfigOption<Long> PARQUET_BLOCK_SIZE_OPTION =
      ConfigOption.key(PARQUET_BLOCK_SIZE)
          .sizeType()
          .defaultValue(ValueParsers.size(PARQUET_BLOCK_SIZE_DEFAULT))
          .require(b -> b >= 1024, "at least 1 kb")
          .withDescription(
              "the row group size of Parquet data files (bytes buffered per file before"
                  + " a row group is written)");
  static final ConfigOption<Long> PARQUET_PAGE_SIZE_OPTION =
      ConfigOption.key(PARQUET_PAGE_SIZE)
          .sizeType()
          .defaultValue(ValueParsers.size(PARQUET_PAGE_SIZE_DEFAULT))
          .require(b -> b >= 64 && b <= Integer.MAX_VALUE, "64 bytes to 2 gb")
          .withDescription("the page size of Parquet data files (and of their dictionary pages)");
  static final ConfigOption<String> METADATA_STATS_MODE_OPTION =
      ConfigOption.key(METADATA_STATS_MODE)
          .stringType()
          .defaultValue(StatsMode.DEFAULT.toString())
          .require(CoreOptions::isStatsMode, "none, counts, truncate(n) with n >= 1, or full")
          .withDescription(
              "the column statistics each data file's manifest entry keeps, for skipping files"
                  + " by a filter: `none`, `counts` (null counts), `truncate(n)` (null counts, min and"
                  + " max, STRING and BYTES bounds cut to n characters or bytes, the max raised to stay"
                  + " an upper bound) or `full`. `fields.<name>.stats-mode` sets one column's, as in"
                  + " Paimon. Applies to files written from then on; files without statistics are"
                  + " never skipped");
  static final ConfigOption<String> MERGE_ENGINE_OPTION =
      ConfigOption.key(MERGE_ENGINE)
          .stringType()
          .defaultValue("deduplicate")
          .withDescription("the only engine so far: the latest row per key wins");
  static final ConfigOption<String> SEQUENCE_FIELD_OPTION =
      ConfigOption.key(SEQUENCE_FIELD)
          .stringType()
          .noDefaultValue()
          .withDefaultText("none")
          .withDescription(
              "primary-key tables: columns (comma separated, compared in order) whose"
                  + " greatest value wins a key, before commit order and arrival; NULL is the smallest"
                  + " value. INT, BIGINT, DOUBLE, DECIMAL, DATE, TIMESTAMP or STRING columns; checked and"
                  + " stored when the table is created (a catalog default too); a table object asking for"
                  + " another is refused (see \"Row kinds and sequence.field\")");

  public static final String COMPACTION_MIN_FILE_NUM = "compaction.min.file-num";
  public static final int COMPACTION_MIN_FILE_NUM_DEFAULT = 5;
  public static final String COMPACTION_MAX_FILE_NUM = "compaction.max.file-num";
  public static final int COMPACTION_MAX_FILE_NUM_DEFAULT = 50;

  static final ConfigOption<Integer> COMPACTION_MIN_FILE_NUM_OPTION =
      ConfigOption.key(COMPACTION_MIN_FILE_NUM)
          .intType()
          .defaultValue(COMPACTION_MIN_FILE_NUM_DEFAULT)
          .require(Requirement.atLeast(2))
          .withDescription(
              "append tables: consecutive files of a bucket (in row order) that start a"
                  + " compaction; files are skipped from the front while fewer than this many already"
                  + " reach `target-file-size` (Paimon's rule; see \"Append-table compaction\")");
  static final ConfigOption<Integer> COMPACTION_MAX_FILE_NUM_OPTION =
      ConfigOption.key(COMPACTION_MAX_FILE_NUM)
          .intType()
          .defaultValue(COMPACTION_MAX_FILE_NUM_DEFAULT)
          .require(Requirement.atLeast(2))
          .withDescription(
              "append tables: the most files one compaction run rewrites; a picked run grows"
                  + " past `compaction.min.file-num` with the next files while they add up to less than"
                  + " `target-file-size`, up to this many");

  /** The {@code bucket} value of dynamic bucket mode. */
  public static final int DYNAMIC_BUCKET = -1;

  public static final String DYNAMIC_BUCKET_TARGET_ROW_NUM = "dynamic-bucket.target-row-num";
  public static final long DYNAMIC_BUCKET_TARGET_ROW_NUM_DEFAULT = 2_000_000L;
  public static final String DYNAMIC_BUCKET_INITIAL_BUCKETS = "dynamic-bucket.initial-buckets";
  public static final String DYNAMIC_BUCKET_MAX_BUCKETS = "dynamic-bucket.max-buckets";

  /** The highest bucket count of a dynamic partition: the index stores buckets as shorts. */
  public static final int DYNAMIC_BUCKET_LIMIT = Short.MAX_VALUE;

  static final ConfigOption<Long> DYNAMIC_BUCKET_TARGET_ROW_NUM_OPTION =
      ConfigOption.key(DYNAMIC_BUCKET_TARGET_ROW_NUM)
          .longType()
          .defaultValue(DYNAMIC_BUCKET_TARGET_ROW_NUM_DEFAULT)
          .require(n -> n >= 1, "at least 1")
          .withDescription(
              "`bucket = -1`: keys per bucket (counted as distinct key hashes in the"
                  + " committed index) before new keys go to another bucket");
  static final ConfigOption<Integer> DYNAMIC_BUCKET_INITIAL_BUCKETS_OPTION =
      ConfigOption.key(DYNAMIC_BUCKET_INITIAL_BUCKETS)
          .intType()
          .defaultValue(1)
          .require(
              n -> n >= 1 && n <= DYNAMIC_BUCKET_LIMIT, "between 1 and " + DYNAMIC_BUCKET_LIMIT)
          .withDescription(
              "`bucket = -1`: buckets a partition starts with; a new key goes to"
                  + " `hash mod initial-buckets` while that bucket has room");
  static final ConfigOption<Integer> DYNAMIC_BUCKET_MAX_BUCKETS_OPTION =
      ConfigOption.key(DYNAMIC_BUCKET_MAX_BUCKETS)
          .intType()
          .defaultValue(-1)
          .withDefaultText("-1 (no limit but " + DYNAMIC_BUCKET_LIMIT + ")")
          .require(
              n -> n == -1 || (n >= 1 && n <= DYNAMIC_BUCKET_LIMIT),
              "-1 (no limit) or between 1 and " + DYNAMIC_BUCKET_LIMIT)
          .withDescription(
              "`bucket = -1`: buckets per partition at most; once all are full, a new key"
                  + " goes to the least-filled bucket (writes are never refused, buckets grow past"
                  + " `target-row-num`)");

  /** The engine's table options, in the order of the README table. */
  public static final List<ConfigOption<?>> OPTIONS =
      List.of(
          BUCKET_OPTION,
          WRITE_ONLY_OPTION,
          COMPACTION_TRIGGER_OPTION,
          STOP_TRIGGER_OPTION,
          COMPACTION_MAX_THREAD_OPTION,
          COMPACTION_MIN_FILE_NUM_OPTION,
          COMPACTION_MAX_FILE_NUM_OPTION,
          WRITE_FLUSH_THREADS_OPTION,
          NUM_LEVELS_OPTION,
          WRITE_BUFFER_SIZE_OPTION,
          TARGET_FILE_SIZE_OPTION,
          COMMIT_MAX_RETRIES_OPTION,
          COMMIT_TIMEOUT_OPTION,
          COMMIT_MIN_RETRY_WAIT_OPTION,
          COMMIT_MAX_RETRY_WAIT_OPTION,
          COMMIT_IN_PROCESS_TURNS_OPTION,
          MANIFEST_MERGE_MIN_COUNT_OPTION,
          MANIFEST_TARGET_FILE_SIZE_OPTION,
          MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE_OPTION,
          SCAN_MANIFEST_PARALLELISM_OPTION,
          FILE_FORMAT_OPTION,
          FILE_COMPRESSION_OPTION,
          PARQUET_BLOCK_SIZE_OPTION,
          PARQUET_PAGE_SIZE_OPTION,
          METADATA_STATS_MODE_OPTION,
          MERGE_ENGINE_OPTION,
          SEQUENCE_FIELD_OPTION,
          DYNAMIC_BUCKET_TARGET_ROW_NUM_OPTION,
          DYNAMIC_BUCKET_INITIAL_BUCKETS_OPTION,
          DYNAMIC_BUCKET_MAX_BUCKETS_OPTION);

  public CoreOptions {
    BUCKET_OPTION.check(bucket);
    COMPACTION_TRIGGER_OPTION.check(compactionTrigger);
    require(
        stopTrigger >= compactionTrigger,
        STOP_TRIGGER,
        stopTrigger,
        "at least '" + COMPACTION_TRIGGER + "' (" + compactionTrigger + ")");
    COMPACTION_MAX_THREAD_OPTION.check(compactionMaxThreads);
    WRITE_FLUSH_THREADS_OPTION.check(writeFlushThreads);
    require(numLevels >= 2, NUM_LEVELS, numLevels, "at least 2");
    WRITE_BUFFER_SIZE_OPTION.check(writeBufferBytes);
    TARGET_FILE_SIZE_OPTION.check(targetFileBytes);
    COMMIT_MAX_RETRIES_OPTION.check(commitMaxRetries);
    COMMIT_TIMEOUT_OPTION.check(commitTimeout);
    MANIFEST_MERGE_MIN_COUNT_OPTION.check(manifestMergeMinCount);
    require(
        !commitMaxRetryWait.minus(commitMinRetryWait).isNegative(),
        COMMIT_MAX_RETRY_WAIT,
        commitMaxRetryWait,
        "at least '" + COMMIT_MIN_RETRY_WAIT + "'");
    FILE_FORMAT_OPTION.check(fileFormat);
    FILE_COMPRESSION_OPTION.check(fileCompression);
    require(
        !(fileFormat.equals("avro") && fileCompression.equals("lz4")),
        FILE_COMPRESSION,
        fileCompression,
        "zstd, snappy, deflate or none for Avro files (lz4 is for"
            + " 'file.format' = 'parquet' only)");
    PARQUET_BLOCK_SIZE_OPTION.check(parquetBlockSize);
    PARQUET_PAGE_SIZE_OPTION.check((long) parquetPageSize);
    if (all != null) {
      all.get(DYNAMIC_BUCKET_TARGET_ROW_NUM_OPTION);
      int initial = all.get(DYNAMIC_BUCKET_INITIAL_BUCKETS_OPTION);
      int max = all.get(DYNAMIC_BUCKET_MAX_BUCKETS_OPTION);
      require(
          max == -1 || max >= initial,
          DYNAMIC_BUCKET_MAX_BUCKETS,
          max,
          "-1 or at least '" + DYNAMIC_BUCKET_INITIAL_BUCKETS + "' (" + initial + ")");
      int minFiles = all.get(COMPACTION_MIN_FILE_NUM_OPTION);
      int maxFiles = all.get(COMPACTION_MAX_FILE_NUM_OPTION);
      require(
          maxFiles >= minFiles,
          COMPACTION_MAX_FILE_NUM,
          maxFiles,
          "at least '" + COMPACTION_MIN_FILE_NUM + "' (" + minFiles + ")");
    }
  }

  /** {@code compaction.min.file-num}: files of an append bucket that start a compaction. */
  public int compactionMinFileNum() {
    return all == null ? COMPACTION_MIN_FILE_NUM_DEFAULT : all.get(COMPACTION_MIN_FILE_NUM_OPTION);
  }

  /** {@code compaction.max.file-num}: the most files of one append compaction run. */
  public int compactionMaxFileNum() {
    return all == null ? COMPACTION_MAX_FILE_NUM_DEFAULT : all.get(COMPACTION_MAX_FILE_NUM_OPTION);
  }

  /** {@code commit.in-process-turns}: whether lock-free committers of one JVM take turns. */
  public boolean commitInProcessTurns() {
    return all == null || all.get(COMMIT_IN_PROCESS_TURNS_OPTION);
  }

  /** Whether this is dynamic bucket mode ({@code bucket = -1}). */
  public boolean dynamicBucket() {
    return bucket == DYNAMIC_BUCKET;
  }

  /** {@code dynamic-bucket.target-row-num}. */
  public long dynamicBucketTargetRowNum() {
    return all.get(DYNAMIC_BUCKET_TARGET_ROW_NUM_OPTION);
  }

  /** {@code dynamic-bucket.initial-buckets}. */
  public int dynamicBucketInitialBuckets() {
    return all.get(DYNAMIC_BUCKET_INITIAL_BUCKETS_OPTION);
  }

  /** {@code dynamic-bucket.max-buckets}, {@link #DYNAMIC_BUCKET_LIMIT} for -1. */
  public int dynamicBucketMaxBuckets() {
    int max = all.get(DYNAMIC_BUCKET_MAX_BUCKETS_OPTION);
    return max == -1 ? DYNAMIC_BUCKET_LIMIT : max;
  }

  private static void require(boolean ok, String key, Object value, String what) {
    if (!ok) {
      throw new IllegalArgumentException(
          "Option '" + key + "' is " + value + "; it must be " + what + ".");
    }
  }

  /** Parses catalog options overlaid with a table's options. */
  public static CoreOptions from(Map<String, String> values) {
    Options o = Options.of(values);
    String engine = o.get(MERGE_ENGINE_OPTION);
    if (!engine.equals("deduplicate")) {
      throw new IllegalArgumentException(
          "Option '" + MERGE_ENGINE + "' is '" + engine + "'; only 'deduplicate' is supported.");
    }
    int trigger = o.get(COMPACTION_TRIGGER_OPTION);
    String format = o.get(FILE_FORMAT_OPTION, FILE_FORMAT_STORED_WITHOUT);
    o.get(MANIFEST_TARGET_FILE_SIZE_OPTION); // validated here, read through the accessors
    o.get(MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE_OPTION);
    o.get(SCAN_MANIFEST_PARALLELISM_OPTION);
    return new CoreOptions(
        o.get(BUCKET_OPTION),
        o.get(WRITE_ONLY_OPTION),
        trigger,
        o.get(STOP_TRIGGER_OPTION, trigger + 3),
        o.get(COMPACTION_MAX_THREAD_OPTION),
        o.get(
            WRITE_FLUSH_THREADS_OPTION,
            Math.min(WRITE_FLUSH_THREADS_MAX_DEFAULT, Runtime.getRuntime().availableProcessors())),
        o.get(NUM_LEVELS_OPTION, trigger + 1),
        o.get(WRITE_BUFFER_SIZE_OPTION),
        o.get(TARGET_FILE_SIZE_OPTION),
        o.get(COMMIT_MAX_RETRIES_OPTION),
        o.get(COMMIT_TIMEOUT_OPTION),
        o.get(COMMIT_MIN_RETRY_WAIT_OPTION),
        o.get(COMMIT_MAX_RETRY_WAIT_OPTION),
        o.get(MANIFEST_MERGE_MIN_COUNT_OPTION),
        format,
        o.get(FILE_COMPRESSION_OPTION, format.equals("parquet") ? "zstd" : "deflate"),
        o.get(PARQUET_BLOCK_SIZE_OPTION),
        (int) Math.min(Integer.MAX_VALUE, o.get(PARQUET_PAGE_SIZE_OPTION)),
        o);
  }

  /** The {@code sequence.field} columns, in order; empty when the option is not set. */
  public List<String> sequenceFields() {
    String value = all.get(SEQUENCE_FIELD_OPTION);
    if (value == null || value.isBlank()) {
      return List.of();
    }
    return java.util.Arrays.stream(value.split(",")).map(String::trim).toList();
  }

  /** {@code manifest.target-file-size}: merged manifests roll at this size. */
  public long manifestTargetFileSize() {
    return all.get(MANIFEST_TARGET_FILE_SIZE_OPTION);
  }

  /**
   * {@code scan.manifest.parallelism}: the option, else the number of processors but at least 4
   * (manifest reads also wait on the store, and a loaded machine schedules more threads more
   * often).
   */
  public int scanManifestParallelism() {
    Integer set = all == null ? null : all.get(SCAN_MANIFEST_PARALLELISM_OPTION);
    return set != null ? set : Math.max(4, Runtime.getRuntime().availableProcessors());
  }

  /** {@code manifest.full-compaction-threshold-size}. */
  public long manifestFullCompactionThresholdSize() {
    return all.get(MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE_OPTION);
  }

  private static boolean isStatsMode(String text) {
    try {
      StatsMode.parse(text);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * The stats mode of each column of {@code rowType}: {@code fields.<name>.stats-mode}, else {@code
   * metadata.stats-mode}.
   *
   * @throws IllegalArgumentException for a bad mode, or a {@code fields.} key naming no column or
   *     another option, naming the key and the fix
   */
  public StatsMode[] statsModes(RowType rowType) {
    StatsMode table = StatsMode.parse(all.get(METADATA_STATS_MODE_OPTION));
    StatsMode[] modes = new StatsMode[rowType.size()];
    java.util.Arrays.fill(modes, table);
    for (Map.Entry<String, String> e : all.asMap().entrySet()) {
      String key = e.getKey();
      if (!key.startsWith(FIELDS_PREFIX)) {
        continue;
      }
      if (!key.endsWith(STATS_MODE_SUFFIX)
          || key.length() <= FIELDS_PREFIX.length() + STATS_MODE_SUFFIX.length()) {
        throw new IllegalArgumentException(
            "Option '"
                + key
                + "' is unknown: the only per-column option is '"
                + FIELDS_PREFIX
                + "<column>"
                + STATS_MODE_SUFFIX
                + "'.");
      }
      String column =
          key.substring(FIELDS_PREFIX.length(), key.length() - STATS_MODE_SUFFIX.length());
      int index = rowType.indexOf(column);
      if (index < 0) {
        throw new IllegalArgumentException(
            "Option '" + key + "' names no column; the columns are " + rowType.names() + ".");
      }
      try {
        modes[index] = StatsMode.parse(e.getValue());
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException("Option '" + key + "': " + bad.getMessage());
      }
    }
    return modes;
  }

  /** The highest LSM level; a full compaction writes here. */
  public int maxLevel() {
    return numLevels - 1;
  }
}
