package dev.lockstep.engine.store;

import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.Options;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Changelog and streaming-read options (docs/engine.md, "Changelog and streaming reads"), parsed
 * once from a table's merged options. Keys and meanings follow Apache Paimon.
 *
 * @param producer what a primary-key table writes as its changelog
 * @param numRetainedMin {@code changelog.num-retained.min}; {@code null}: the snapshot one
 * @param numRetainedMax {@code changelog.num-retained.max}; {@code null}: the snapshot one
 * @param timeRetained {@code changelog.time-retained}; {@code null}: the snapshot one
 * @param scanMode where a stream scan starts
 * @param scanSnapshotId {@code scan.snapshot-id}, {@code null} when not set
 * @param scanTimestampMillis {@code scan.timestamp-millis}, {@code null} when not set
 * @param consumerId {@code consumer-id}, {@code null} when not set
 * @param consumerExpiration {@code consumer.expiration-time}, {@code null}: never
 * @param lookupCacheMaxMemory {@code lookup.cache-max-memory-size}, bytes
 * @param lookupCacheMaxDisk {@code lookup.cache-max-disk-size}, bytes
 * @param lookupCacheDir {@code lookup.cache-dir}; {@code null}: {@code java.io.tmpdir}
 */
public record ChangelogOptions(
    Producer producer,
    Integer numRetainedMin,
    Integer numRetainedMax,
    Duration timeRetained,
    ScanMode scanMode,
    Long scanSnapshotId,
    Long scanTimestampMillis,
    String consumerId,
    Duration consumerExpiration,
    long lookupCacheMaxMemory,
    long lookupCacheMaxDisk,
    String lookupCacheDir) {

  /** {@code changelog-producer}. */
  public enum Producer {
    /** No changelog files: a stream reads each APPEND snapshot's new rows as upserts. */
    NONE,
    /** The buffer's input rows, with their own kinds, become the changelog at each flush. */
    INPUT,
    /**
     * Each key's previous value is looked up to write exact {@code -U/+U}, {@code +I}, {@code -D}.
     */
    LOOKUP
  }

  /** {@code scan.mode}. */
  public enum ScanMode {
    /** {@code latest-full} for a stream scan: the latest snapshot in full, then its changes. */
    DEFAULT,
    /** The changes committed after the latest snapshot, nothing before. */
    LATEST,
    /** The latest snapshot in full ({@code +I}), then the changes after it. */
    LATEST_FULL,
    /** Same as {@link #LATEST_FULL} for a stream scan. */
    FULL,
    /** The changes from snapshot {@code scan.snapshot-id} on (that snapshot included). */
    FROM_SNAPSHOT,
    /** Snapshot {@code scan.snapshot-id} in full, then the changes after it. */
    FROM_SNAPSHOT_FULL,
    /** The changes of the snapshots committed after {@code scan.timestamp-millis}. */
    FROM_TIMESTAMP
  }

  public static final ConfigOption<Producer> CHANGELOG_PRODUCER =
      ConfigOption.key("changelog-producer")
          .enumType(Producer.class)
          .defaultValue(Producer.NONE)
          .withDescription(
              "primary-key tables: `none` (no changelog files; a stream reads each APPEND"
                  + " snapshot's rows as upserts and must normalize them itself), `input` (each flush"
                  + " writes the buffer's input rows, with their own kinds, as a changelog file) or"
                  + " `lookup` (each flush looks up every key's committed value and writes exact"
                  + " `-U`/`+U`, `+I` and `-D`)");
  public static final ConfigOption<Integer> NUM_RETAINED_MIN =
      ConfigOption.key("changelog.num-retained.min")
          .intType()
          .noDefaultValue()
          .withDefaultText("`snapshot.num-retained.min`")
          .require(Requirement.atLeast(1))
          .withDescription(
              "changelogs expiration keeps at least; a changelog lives as long as its"
                  + " snapshot, which is kept while this or the snapshot retention asks for it");
  public static final ConfigOption<Integer> NUM_RETAINED_MAX =
      ConfigOption.key("changelog.num-retained.max")
          .intType()
          .noDefaultValue()
          .withDefaultText("`snapshot.num-retained.max`")
          .require(Requirement.atLeast(1))
          .withDescription("above this many, the oldest changelogs may expire whatever their age");
  public static final ConfigOption<Duration> TIME_RETAINED =
      ConfigOption.key("changelog.time-retained")
          .durationType()
          .noDefaultValue()
          .withDefaultText("`snapshot.time-retained`")
          .require(Requirement.notNegative())
          .withDescription(
              "a changelog expires only once its successor is older than this; deletes"
                  + " history");
  public static final ConfigOption<ScanMode> SCAN_MODE =
      ConfigOption.key("scan.mode")
          .enumType(ScanMode.class)
          .defaultValue(ScanMode.DEFAULT)
          .withDescription(
              "where a stream scan starts: `latest` (changes after the latest snapshot),"
                  + " `latest-full`, `full` and `default` (the latest snapshot in full, then its"
                  + " changes), `from-snapshot` (changes from `scan.snapshot-id` on),"
                  + " `from-snapshot-full`, `from-timestamp` (changes of the snapshots committed after"
                  + " `scan.timestamp-millis`); a consumer's recorded position wins over it");
  public static final ConfigOption<Long> SCAN_SNAPSHOT_ID =
      ConfigOption.key("scan.snapshot-id")
          .longType()
          .noDefaultValue()
          .withDefaultText("none")
          .require(id -> id >= 1, "at least 1")
          .withDescription(
              "the first snapshot of `from-snapshot` (setting it alone implies that" + " mode)");
  public static final ConfigOption<Long> SCAN_TIMESTAMP_MILLIS =
      ConfigOption.key("scan.timestamp-millis")
          .longType()
          .noDefaultValue()
          .withDefaultText("none")
          .withDescription(
              "epoch milliseconds for `from-timestamp` (setting it alone implies that" + " mode)");
  public static final ConfigOption<String> CONSUMER_ID =
      ConfigOption.key("consumer-id")
          .stringType()
          .noDefaultValue()
          .withDefaultText("none")
          .require(
              id -> id.matches("[A-Za-z0-9_.-]+"), "letters, digits, '_', '.' or '-' (a file name)")
          .withDescription(
              "a stream scan records its next snapshot in `consumer/consumer-<id>` at each"
                  + " checkpoint and resumes there; expiration keeps every snapshot from it on");
  public static final ConfigOption<Duration> CONSUMER_EXPIRATION_TIME =
      ConfigOption.key("consumer.expiration-time")
          .durationType()
          .noDefaultValue()
          .withDefaultText("never")
          .require(Requirement.positive())
          .withDescription(
              "a consumer not updated for this long no longer holds snapshots (expiration"
                  + " may then delete what it has not read)");
  public static final ConfigOption<Long> LOOKUP_CACHE_MAX_MEMORY_SIZE =
      ConfigOption.key("lookup.cache-max-memory-size")
          .sizeType()
          .defaultValue(256L << 20)
          .require(b -> b >= 1024, "at least 1 kb")
          .withDescription(
              "`lookup` producer: memory of a writer's cached key indexes of data files"
                  + " (least recently used evicted first)");
  public static final ConfigOption<Long> LOOKUP_CACHE_MAX_DISK_SIZE =
      ConfigOption.key("lookup.cache-max-disk-size")
          .sizeType()
          .defaultValue(Long.MAX_VALUE)
          .withDefaultText("unlimited")
          .require(b -> b >= 0, "0 or more")
          .withDescription(
              "`lookup` producer: local disk for copies of the data files the lookup reads"
                  + " (least recently used evicted first; 0: no disk tier, a file not in memory is"
                  + " read from the store again); not used on a local warehouse");
  public static final ConfigOption<String> LOOKUP_CACHE_DIR =
      ConfigOption.key("lookup.cache-dir")
          .stringType()
          .noDefaultValue()
          .withDefaultText("`java.io.tmpdir`")
          .withDescription(
              "`lookup` producer: local directory under which each writer's lookup cache"
                  + " keeps its file copies, in a subdirectory of its own removed on close (those"
                  + " of dead processes are removed by the next cache there)");

  /** In the order of the README table. */
  public static final List<ConfigOption<?>> OPTIONS =
      List.of(
          CHANGELOG_PRODUCER,
          NUM_RETAINED_MIN,
          NUM_RETAINED_MAX,
          TIME_RETAINED,
          SCAN_MODE,
          SCAN_SNAPSHOT_ID,
          SCAN_TIMESTAMP_MILLIS,
          CONSUMER_ID,
          CONSUMER_EXPIRATION_TIME,
          LOOKUP_CACHE_MAX_MEMORY_SIZE,
          LOOKUP_CACHE_MAX_DISK_SIZE,
          LOOKUP_CACHE_DIR);

  /** Parses the options; @throws IllegalArgumentException one line naming a bad key and the fix */
  public static ChangelogOptions from(Map<String, String> values) {
    Options o = Options.of(values);
    Long snapshotId = o.get(SCAN_SNAPSHOT_ID, null);
    Long timestamp = o.get(SCAN_TIMESTAMP_MILLIS, null);
    ScanMode mode = o.get(SCAN_MODE);
    if (mode == ScanMode.DEFAULT && snapshotId != null) {
      mode = ScanMode.FROM_SNAPSHOT;
    } else if (mode == ScanMode.DEFAULT && timestamp != null) {
      mode = ScanMode.FROM_TIMESTAMP;
    }
    if ((mode == ScanMode.FROM_SNAPSHOT || mode == ScanMode.FROM_SNAPSHOT_FULL)
        && snapshotId == null) {
      throw new IllegalArgumentException(
          "Option 'scan.mode' is "
              + mode.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
              + " but 'scan.snapshot-id' is not set; set it to the first snapshot to read.");
    }
    if (mode == ScanMode.FROM_TIMESTAMP && timestamp == null) {
      throw new IllegalArgumentException(
          "Option 'scan.mode' is from-timestamp but 'scan.timestamp-millis' is not set; set it to"
              + " epoch milliseconds.");
    }
    return new ChangelogOptions(
        o.get(CHANGELOG_PRODUCER),
        o.get(NUM_RETAINED_MIN, null),
        o.get(NUM_RETAINED_MAX, null),
        o.get(TIME_RETAINED, null),
        mode,
        snapshotId,
        timestamp,
        o.get(CONSUMER_ID, null),
        o.get(CONSUMER_EXPIRATION_TIME, null),
        o.get(LOOKUP_CACHE_MAX_MEMORY_SIZE),
        o.get(LOOKUP_CACHE_MAX_DISK_SIZE),
        o.get(LOOKUP_CACHE_DIR, null));
  }
}
