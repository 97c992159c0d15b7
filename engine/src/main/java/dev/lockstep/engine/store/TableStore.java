package dev.lockstep.engine.store;

import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.PartitionPath;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.format.AvroFileFormat;
import dev.lockstep.engine.format.DataFileFormat;
import dev.lockstep.engine.format.FileFormat;
import dev.lockstep.engine.format.KeyCodec;
import dev.lockstep.engine.format.StatsCodec;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.IndexManifest;
import dev.lockstep.engine.manifest.ManifestFile;
import dev.lockstep.engine.manifest.ManifestList;
import dev.lockstep.engine.predicate.StatsCollector;
import dev.lockstep.engine.predicate.StatsMode;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The storage side of one table at {@code <warehouse>/<database>.db/<table>/}: its store, paths,
 * schema, merged options, file formats, snapshot and manifest files and its commit protocol. This
 * is the bottom of the engine's layers (docs/engine.md#design-3-layers): scans, writers,
 * compaction, commits and maintenance are built on it and never on the {@code FileStoreTable}
 * facade, which adds the entry points ({@code newWrite}, {@code newCommit}, ...) on top of them.
 * Thread-safe.
 *
 * <pre>
 *   schema/schema-N                     versioned schema (JSON)
 *   snapshot/snapshot-N, LATEST, ...    snapshots (JSON), committed only through lock-api
 *   manifest/manifest-*.avro            manifests and manifest lists (Avro)
 *   k1=v1/k2=v2/bucket-B/data-*.parquet data files (Parquet, or Avro: data-*.avro)
 * </pre>
 */
public class TableStore implements Closeable {

  /** Data-file column: the snapshot that committed a row, -1 = the file's commit snapshot. */
  public static final String SNAPSHOT_FIELD = "_SNAPSHOT";

  /** Data-file column: the row's sequence number inside its commit. */
  public static final String SEQUENCE_FIELD = "_SEQUENCE";

  /**
   * Data-file column: whether the row removes its key (its kind is {@code -U} or {@code -D}). Kept
   * beside {@link #ROW_KIND_FIELD} so that files stay readable, with the right keys, by versions
   * that predate row kinds.
   */
  public static final String DELETED_FIELD = "_DELETED";

  /**
   * Data-file column: the row's {@link RowKind} ({@link RowKind#toByteValue()}), nullable. Files
   * written before row kinds lack it and read it as NULL: the kind is then {@code -D} where {@code
   * _DELETED} is set, else {@code +I} ({@link #rowKindOf}).
   */
  public static final String ROW_KIND_FIELD = "_ROW_KIND";

  private final FileIO fileIO;
  private final Path path;
  private final String fullName;
  private final TableSchema schema;
  private final Map<String, String> catalogOptions;
  private final Map<String, String> dynamicOptions;
  private final Map<String, String> allOptions;
  private final CoreOptions options;
  private final ChangelogOptions changelogOptions;
  private final FileFormat format;
  private final SnapshotManager snapshots;
  private final ManifestFile manifestFile;
  private final ManifestList manifestList;
  private final IndexManifest indexManifest;
  private final PartitionPath partitionPath;
  private final KeyCodec keyCodec;
  private final StatsMode[] statsModes;
  private final StatsCodec valueStatsCodec;
  private final StatsCodec partitionStatsCodec;
  private final int[] sequenceFieldIndexes;
  private SnapshotCommitter committer;
  private final MaintenanceGate maintenanceGate = new MaintenanceGate();

  /** Why this object may not write (a bucket option that differs from the stored one), or null. */
  private final String bucketConflict;

  /**
   * @param catalogOptions catalog options (lock, commit strategy, store); the schema's options
   *     override them
   */
  public TableStore(
      FileIO fileIO,
      Path path,
      String fullName,
      TableSchema schema,
      Map<String, String> catalogOptions) {
    this(fileIO, path, fullName, schema, catalogOptions, Map.of());
  }

  /**
   * @param dynamicOptions options for this object only, over the schema's (see subclasses)
   */
  protected TableStore(
      FileIO fileIO,
      Path path,
      String fullName,
      TableSchema schema,
      Map<String, String> catalogOptions,
      Map<String, String> dynamicOptions) {
    this.fileIO = fileIO;
    this.path = path;
    this.fullName = fullName;
    this.schema = schema;
    this.catalogOptions = Map.copyOf(catalogOptions);
    this.dynamicOptions = Map.copyOf(dynamicOptions);
    Map<String, String> merged = new HashMap<>(catalogOptions);
    merged.putAll(schema.options());
    merged.putAll(dynamicOptions);
    // The bucket count is a property of the stored table: a writer with another count would put a
    // key of a primary-key table into a second bucket, where it would be read twice.
    String stored = schema.options().get(CoreOptions.BUCKET);
    String asked = dynamicOptions.get(CoreOptions.BUCKET);
    if (stored != null && asked != null && !asked.trim().equals(stored.trim())) {
      this.bucketConflict =
          "Table "
              + fullName
              + " is stored with "
              + CoreOptions.BUCKET
              + "="
              + stored
              + "; option '"
              + CoreOptions.BUCKET
              + "="
              + asked
              + "' would write it with"
              + " another bucket count (a primary-key table would then hold a key twice). Drop the"
              + " '"
              + CoreOptions.BUCKET
              + "' option: the stored table decides its bucket count.";
      merged.put(CoreOptions.BUCKET, stored);
    } else {
      this.bucketConflict = null;
    }
    this.allOptions = Map.copyOf(merged);
    this.options = CoreOptions.from(allOptions);
    this.changelogOptions = ChangelogOptions.from(allOptions);
    if (DeletionVectorOptions.enabled(allOptions) && !schema.hasPrimaryKey()) {
      throw new IllegalArgumentException(
          "Table "
              + fullName
              + " is an append table; '"
              + DeletionVectorOptions.ENABLED.key()
              + "' = true is for primary-key tables only (append tables never merge keys). Drop"
              + " the option, or give the table a primary key.");
    }
    if (options.dynamicBucket() && !schema.hasPrimaryKey()) {
      throw new IllegalArgumentException(
          "Table "
              + fullName
              + " is an append table; '"
              + CoreOptions.BUCKET
              + "' = -1 (dynamic buckets) is for primary-key tables only. Give the table a"
              + " primary key, or a fixed '"
              + CoreOptions.BUCKET
              + "' of 1 or more.");
    }
    this.format =
        new DataFileFormat(
            options.fileFormat(),
            options.fileCompression(),
            options.parquetBlockSize(),
            options.parquetPageSize(),
            parquetPlainColumns(schema));
    this.snapshots =
        new SnapshotManager(new dev.lockstep.commit.SnapshotLog(fileIO, path.child("snapshot")));
    // Manifests stay Avro whatever the data files are: deflated, unless compression is off.
    String manifestCodec =
        options.fileCompression().equals("none") || options.fileCompression().equals("null")
            ? "null"
            : "deflate";
    FileFormat manifests = new AvroFileFormat(manifestCodec);
    this.statsModes = options.statsModes(schema.rowType());
    this.valueStatsCodec = new StatsCodec(schema.rowType());
    this.partitionStatsCodec =
        schema.partitionKeys().isEmpty() ? null : new StatsCodec(schema.partitionType());
    PartitionPath partitions = new PartitionPath(schema.partitionType());
    StatsCodec partitionCodec = partitionStatsCodec;
    this.manifestFile =
        new ManifestFile(
            fileIO,
            path.child("manifest"),
            manifests,
            partitionCodec == null
                ? null
                : names -> {
                  StatsMode[] full = new StatsMode[schema.partitionKeys().size()];
                  java.util.Arrays.fill(full, StatsMode.FULL);
                  StatsCollector collector = new StatsCollector(full);
                  names.forEach(name -> collector.update(partitions.toRow(name)));
                  return partitionCodec.encode(collector.result());
                });
    this.manifestList = new ManifestList(fileIO, path.child("manifest"), manifests);
    this.indexManifest = new IndexManifest(fileIO, path.child("manifest"), manifests);
    this.partitionPath = new PartitionPath(schema.partitionType());
    this.keyCodec = schema.hasPrimaryKey() ? new KeyCodec(schema.primaryKeyType()) : null;
    // sequence.field decides which stored row wins a key, for readers as for writers: only the
    // stored table's value counts, and a table object may not ask for another.
    String storedSequence = schema.options().getOrDefault(CoreOptions.SEQUENCE_FIELD, "").trim();
    String askedSequence = allOptions.getOrDefault(CoreOptions.SEQUENCE_FIELD, "").trim();
    if (!storedSequence.equals(askedSequence)) {
      throw new IllegalArgumentException(
          "Table "
              + fullName
              + " is stored with "
              + (storedSequence.isEmpty()
                  ? "no " + CoreOptions.SEQUENCE_FIELD
                  : CoreOptions.SEQUENCE_FIELD + "=" + storedSequence)
              + "; option '"
              + CoreOptions.SEQUENCE_FIELD
              + "="
              + askedSequence
              + "' would order its"
              + " rows differently. Drop the '"
              + CoreOptions.SEQUENCE_FIELD
              + "' option: it is set"
              + " when the table is created.");
    }
    this.sequenceFieldIndexes = sequenceFieldIndexes(schema, options.sequenceFields());
  }

  /**
   * The columns of {@code sequence.field} in {@code schema}, checked: a primary-key table, columns
   * that exist, once each, of an orderable type.
   *
   * @throws IllegalArgumentException one line naming the problem and the fix
   */
  public static int[] sequenceFieldIndexes(TableSchema schema, List<String> sequenceFields) {
    if (sequenceFields.isEmpty()) {
      return new int[0];
    }
    String option =
        "Option '" + CoreOptions.SEQUENCE_FIELD + "' = '" + String.join(",", sequenceFields) + "'";
    if (!schema.hasPrimaryKey()) {
      throw new IllegalArgumentException(
          option
              + " needs a primary-key table; append tables keep"
              + " every row. Declare a primary key or drop the option.");
    }
    RowType rowType = schema.rowType();
    List<String> names = rowType.names();
    int[] indexes = new int[sequenceFields.size()];
    for (int i = 0; i < indexes.length; i++) {
      String name = sequenceFields.get(i);
      indexes[i] = names.indexOf(name);
      if (indexes[i] < 0) {
        throw new IllegalArgumentException(
            option
                + " names column '"
                + name
                + "', which the table"
                + " does not have; name one of "
                + names
                + ".");
      }
      if (sequenceFields.subList(0, i).contains(name)) {
        throw new IllegalArgumentException(
            option + " names column '" + name + "' twice; name it" + " once.");
      }
      DataType type = rowType.field(indexes[i]).type();
      switch (type.root()) {
        case INT, BIGINT, DOUBLE, DECIMAL, DATE, TIMESTAMP, STRING -> {}
        default ->
            throw new IllegalArgumentException(
                option
                    + " names column '"
                    + name
                    + "' of"
                    + " type "
                    + type
                    + ", which does not order updates; name an INT, BIGINT, DOUBLE,"
                    + " DECIMAL, DATE, TIMESTAMP or STRING column.");
      }
    }
    return indexes;
  }

  /** The catalog options this object was opened with. */
  protected Map<String, String> catalogOptions() {
    return catalogOptions;
  }

  /** The options for this object only, over the table's own (none unless given). */
  protected Map<String, String> dynamicOptions() {
    return dynamicOptions;
  }

  public FileIO fileIO() {
    return fileIO;
  }

  public Path path() {
    return path;
  }

  /** {@code database.table}; also the commit lock key. */
  public String fullName() {
    return fullName;
  }

  public TableSchema schema() {
    return schema;
  }

  public CoreOptions options() {
    return options;
  }

  /** The changelog producer, changelog retention and streaming-read options. */
  public ChangelogOptions changelogOptions() {
    return changelogOptions;
  }

  /**
   * The changelog producer that writes changelog files: {@code none} in append tables (a stream
   * reads their new data files).
   */
  public ChangelogOptions.Producer changelogProducer() {
    return primaryKeyTable() ? changelogOptions.producer() : ChangelogOptions.Producer.NONE;
  }

  /**
   * The format of this table's data files: writes new files in {@code file.format}, reads each file
   * in the format of its extension (manifests are Avro, see {@link #manifestFile()}).
   */
  public FileFormat format() {
    return format;
  }

  public SnapshotManager snapshotManager() {
    return snapshots;
  }

  public ManifestFile manifestFile() {
    return manifestFile;
  }

  public ManifestList manifestList() {
    return manifestList;
  }

  /** The index manifests and index files of dynamic buckets (both in {@code manifest/}). */
  public IndexManifest indexManifest() {
    return indexManifest;
  }

  public PartitionPath partitionPath() {
    return partitionPath;
  }

  /** The state of the maintenance this object runs after its commits. */
  public MaintenanceGate maintenanceGate() {
    return maintenanceGate;
  }

  /** The stats mode of each table column (options {@code metadata.stats-mode}, per column). */
  public StatsMode[] statsModes() {
    return statsModes.clone();
  }

  /** Encodes and decodes the column statistics of data files over the table's columns. */
  public StatsCodec valueStatsCodec() {
    return valueStatsCodec;
  }

  /** Decodes the partition statistics of manifests; {@code null} in an unpartitioned table. */
  public StatsCodec partitionStatsCodec() {
    return partitionStatsCodec;
  }

  /** The key codec of a primary-key table; {@code null} for an append table. */
  public KeyCodec keyCodec() {
    return keyCodec;
  }

  public boolean primaryKeyTable() {
    return schema.hasPrimaryKey();
  }

  /**
   * The {@code sequence.field} columns' indexes in the table's (and the data files') rows, in
   * order; empty when the table orders rows of a key by commit and arrival only.
   */
  public int[] sequenceFieldIndexes() {
    return sequenceFieldIndexes.clone();
  }

  /** The directory of one bucket's data files. */
  public Path bucketPath(String partition, int bucket) {
    Path base = partition.isEmpty() ? path : path.child(partition);
    return base.child(BucketId.directoryName(bucket));
  }

  /**
   * The columns of a primary-key table's data files whose values do not repeat within a file, so a
   * Parquet dictionary never pays for them: the sequence number and a single-column primary key
   * (one row per key in every file). Empty for append tables.
   */
  static java.util.Set<String> parquetPlainColumns(TableSchema schema) {
    if (!schema.hasPrimaryKey()) {
      return java.util.Set.of();
    }
    return schema.primaryKeys().size() == 1
            && !schema.partitionKeys().contains(schema.primaryKeys().get(0))
        ? java.util.Set.of(SEQUENCE_FIELD, schema.primaryKeys().get(0))
        : java.util.Set.of(SEQUENCE_FIELD);
  }

  /** The columns of a data file: the table's, plus the ordering columns in primary-key tables. */
  public RowType dataFileRowType() {
    if (!primaryKeyTable()) {
      return schema.rowType();
    }
    List<DataField> fields = new ArrayList<>(schema.fields());
    fields.add(new DataField(Integer.MAX_VALUE - 1, SNAPSHOT_FIELD, DataType.bigint().notNull()));
    fields.add(new DataField(Integer.MAX_VALUE - 2, SEQUENCE_FIELD, DataType.bigint().notNull()));
    fields.add(new DataField(Integer.MAX_VALUE, DELETED_FIELD, DataType.booleanType().notNull()));
    // Nullable, and last: a file of the layout before it reads it as NULL (format.RowDatum).
    fields.add(new DataField(Integer.MAX_VALUE - 3, ROW_KIND_FIELD, DataType.intType()));
    return new RowType(fields);
  }

  /**
   * A primary-key data-file row: the table's columns, then snapshot, sequence, deleted (the kind is
   * a retraction) and the kind.
   */
  public GenericRow keyValueFileRow(GenericRow row, long snapshot, long sequence, RowKind kind) {
    int fields = schema.fields().size();
    Object[] values = new Object[fields + KEY_VALUE_SYSTEM_FIELDS];
    for (int i = 0; i < fields; i++) {
      values[i] = row.get(i);
    }
    return keyValueFileRow(values, snapshot, sequence, kind);
  }

  /** The data-file columns a primary-key table adds after the table's: snapshot, sequence, ... */
  public static final int KEY_VALUE_SYSTEM_FIELDS = 4;

  /**
   * {@link #keyValueFileRow(GenericRow, long, long, RowKind)} over {@code values} itself: the
   * table's values, then {@link #KEY_VALUE_SYSTEM_FIELDS} slots that this fills. The caller hands
   * the array over.
   */
  public GenericRow keyValueFileRow(Object[] values, long snapshot, long sequence, RowKind kind) {
    int fields = schema.fields().size();
    if (values.length != fields + KEY_VALUE_SYSTEM_FIELDS) {
      throw new IllegalArgumentException(
          "Expected " + (fields + KEY_VALUE_SYSTEM_FIELDS) + " values, got " + values.length);
    }
    values[fields] = snapshot;
    values[fields + 1] = sequence;
    values[fields + 2] = kind.isRetract();
    values[fields + 3] = (int) kind.toByteValue();
    return GenericRow.wrap(values);
  }

  /**
   * The kind of a primary-key data-file row: its {@code _ROW_KIND}, or for a row of a file written
   * before row kinds (NULL there) {@code -D} when {@code _DELETED} is set, else {@code +I}.
   */
  public RowKind rowKindOf(GenericRow fileRow) {
    int fields = schema.fields().size();
    Object kind = fileRow.get(fields + 3);
    if (kind != null) {
      return RowKind.fromByteValue((Integer) kind);
    }
    return (Boolean) fileRow.get(fields + 2) ? RowKind.DELETE : RowKind.INSERT;
  }

  /**
   * {@code fileRow}, a primary-key data-file row, with its {@code _SNAPSHOT} set to {@code
   * snapshot} (the row itself when it holds that already).
   */
  public GenericRow withCommitSnapshot(GenericRow fileRow, long snapshot) {
    int index = schema.fields().size();
    return ((Long) fileRow.get(index)) == snapshot ? fileRow : fileRow.with(index, snapshot);
  }

  /**
   * The commit protocol of this table, opened on first use from the merged options, with the
   * fencing check of the {@code lock} strategy ({@link SnapshotManager#fencingToken}).
   */
  public synchronized SnapshotCommitter committer() throws IOException {
    if (committer == null) {
      // Under the lock strategy, snapshots record their lease's fencing token, and a holder whose
      // lease was taken over is refused once the newer holder has committed (lock-api README).
      committer =
          SnapshotCommitter.builder(fileIO, snapshots.log().directory(), fullName)
              .options(allOptions)
              .fencing(SnapshotManager::fencingToken)
              .open();
    }
    return committer;
  }

  /**
   * Refuses to write through this object when its options ask for another bucket count than the
   * stored table has ({@code FileStoreTable.copyWithOptions}).
   *
   * @throws IllegalArgumentException naming both counts and the fix
   */
  public void requireWritable() {
    if (bucketConflict != null) {
      throw new IllegalArgumentException(bucketConflict);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    if (committer != null) {
      committer.close();
      committer = null;
    }
  }
}
