package dev.lockstep.engine.table;

import dev.lockstep.options.Options;
import java.time.Duration;
import java.util.Map;

/**
 * The engine's options, parsed once: catalog options overlaid with the table's own options (table
 * wins). Keys match Apache Paimon where it has one.
 */
public record CoreOptions(int bucket, boolean writeOnly, int compactionTrigger, int stopTrigger,
    int compactionMaxThreads, int writeFlushThreads, int numLevels, long writeBufferBytes, long targetFileBytes,
    int commitMaxRetries, Duration commitTimeout, Duration commitMinRetryWait,
    Duration commitMaxRetryWait, int manifestMergeMinCount, String fileCompression,
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
   * Snapshot conflicts one commit survives; 10 as in DESIGN 5 and Paimon. With fair turns a commit
   * loses about one race per other committer, so tables with more than about 8 committers that
   * commit in a tight loop should raise it above their committer count (or rely on
   * {@link #COMMIT_TIMEOUT}).
   */
  public static final String COMMIT_MAX_RETRIES = "commit.max-retries";
  public static final int COMMIT_MAX_RETRIES_DEFAULT = 10;
  /** The time one commit may take, from its first attempt, before it gives up; default: none. */
  public static final String COMMIT_TIMEOUT = "commit.timeout";
  /** The jitter after an uncontended conflict (at most twice this), and the first backoff. */
  public static final String COMMIT_MIN_RETRY_WAIT = "commit.min-retry-wait";
  public static final Duration COMMIT_MIN_RETRY_WAIT_DEFAULT = Duration.ofMillis(1);
  /** The longest backoff, after conflicts under a contended lock. */
  public static final String COMMIT_MAX_RETRY_WAIT = "commit.max-retry-wait";
  public static final Duration COMMIT_MAX_RETRY_WAIT_DEFAULT = Duration.ofMillis(200);
  public static final String MANIFEST_MERGE_MIN_COUNT = "manifest.merge-min-count";
  public static final int MANIFEST_MERGE_MIN_COUNT_DEFAULT = 30;
  /** {@code deflate} (default), {@code null} (none). */
  public static final String FILE_COMPRESSION = "file.compression";
  public static final String FILE_COMPRESSION_DEFAULT = "deflate";
  public static final String MERGE_ENGINE = "merge-engine";

  public CoreOptions {
    require(bucket >= 1, BUCKET, bucket, "at least 1 (dynamic buckets are not supported yet)");
    require(compactionTrigger >= 1, COMPACTION_TRIGGER, compactionTrigger, "at least 1");
    require(stopTrigger >= compactionTrigger, STOP_TRIGGER, stopTrigger,
        "at least '" + COMPACTION_TRIGGER + "' (" + compactionTrigger + ")");
    require(compactionMaxThreads >= 1, COMPACTION_MAX_THREAD, compactionMaxThreads, "at least 1");
    require(writeFlushThreads >= 1, WRITE_FLUSH_THREADS, writeFlushThreads,
        "at least 1 (1 flushes in the writing thread only)");
    require(numLevels >= 2, NUM_LEVELS, numLevels, "at least 2");
    require(writeBufferBytes >= 1024, WRITE_BUFFER_SIZE, writeBufferBytes, "at least 1 kb");
    require(targetFileBytes >= 1024, TARGET_FILE_SIZE, targetFileBytes, "at least 1 kb");
    require(commitMaxRetries >= 0, COMMIT_MAX_RETRIES, commitMaxRetries, "0 or more");
    require(commitTimeout == null || (!commitTimeout.isNegative() && !commitTimeout.isZero()),
        COMMIT_TIMEOUT, commitTimeout, "a positive duration");
    require(manifestMergeMinCount >= 2, MANIFEST_MERGE_MIN_COUNT, manifestMergeMinCount,
        "at least 2");
    require(!commitMaxRetryWait.minus(commitMinRetryWait).isNegative(), COMMIT_MAX_RETRY_WAIT,
        commitMaxRetryWait, "at least '" + COMMIT_MIN_RETRY_WAIT + "'");
    require(fileCompression.equals("deflate") || fileCompression.equals("null"), FILE_COMPRESSION,
        fileCompression, "'deflate' or 'null'");
  }

  private static void require(boolean ok, String key, Object value, String what) {
    if (!ok) {
      throw new IllegalArgumentException("Option '" + key + "' is " + value + "; it must be " + what
          + ".");
    }
  }

  /** Parses catalog options overlaid with a table's options. */
  public static CoreOptions from(Map<String, String> values) {
    Options o = Options.of(values);
    String engine = o.get(MERGE_ENGINE, "deduplicate");
    if (!engine.equals("deduplicate")) {
      throw new IllegalArgumentException("Option '" + MERGE_ENGINE + "' is '" + engine
          + "'; only 'deduplicate' is supported.");
    }
    int trigger = o.getInt(COMPACTION_TRIGGER, COMPACTION_TRIGGER_DEFAULT);
    return new CoreOptions(
        o.getInt(BUCKET, BUCKET_DEFAULT),
        o.getBoolean(WRITE_ONLY, false),
        trigger,
        o.getInt(STOP_TRIGGER, trigger + 3),
        o.getInt(COMPACTION_MAX_THREAD, COMPACTION_MAX_THREAD_DEFAULT),
        o.getInt(WRITE_FLUSH_THREADS, Math.min(WRITE_FLUSH_THREADS_MAX_DEFAULT,
            Runtime.getRuntime().availableProcessors())),
        o.getInt(NUM_LEVELS, trigger + 1),
        MemorySize.parseBytes(WRITE_BUFFER_SIZE, o.get(WRITE_BUFFER_SIZE, WRITE_BUFFER_SIZE_DEFAULT)),
        MemorySize.parseBytes(TARGET_FILE_SIZE, o.get(TARGET_FILE_SIZE, TARGET_FILE_SIZE_DEFAULT)),
        o.getInt(COMMIT_MAX_RETRIES, COMMIT_MAX_RETRIES_DEFAULT),
        o.getDuration(COMMIT_TIMEOUT, null),
        o.getDuration(COMMIT_MIN_RETRY_WAIT, COMMIT_MIN_RETRY_WAIT_DEFAULT),
        o.getDuration(COMMIT_MAX_RETRY_WAIT, COMMIT_MAX_RETRY_WAIT_DEFAULT),
        o.getInt(MANIFEST_MERGE_MIN_COUNT, MANIFEST_MERGE_MIN_COUNT_DEFAULT),
        o.get(FILE_COMPRESSION, FILE_COMPRESSION_DEFAULT),
        o);
  }

  /** The highest LSM level; a full compaction writes here. */
  public int maxLevel() {
    return numLevels - 1;
  }
}
