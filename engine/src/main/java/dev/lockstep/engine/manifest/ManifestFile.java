package dev.lockstep.engine.manifest;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.FileFormat;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.format.FormatWriter;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Manifest files ({@code manifest/manifest-<uuid>.avro}): lists of {@link ManifestEntry}. Written
 * once, never changed, so reads are cached (bounded, per table object).
 */
public final class ManifestFile {

  static final RowType ROW_TYPE =
      new RowType(
          List.of(
              new DataField(0, "kind", DataType.intType().notNull()),
              new DataField(1, "partition", DataType.string().notNull()),
              new DataField(2, "bucket", DataType.intType().notNull()),
              new DataField(3, "total_buckets", DataType.intType().notNull()),
              new DataField(4, "file_name", DataType.string().notNull()),
              new DataField(5, "file_size", DataType.bigint().notNull()),
              new DataField(6, "row_count", DataType.bigint().notNull()),
              new DataField(7, "min_key", DataType.bytes()),
              new DataField(8, "max_key", DataType.bytes()),
              new DataField(9, "min_sequence", DataType.bigint().notNull()),
              new DataField(10, "max_sequence", DataType.bigint().notNull()),
              new DataField(11, "schema_id", DataType.bigint().notNull()),
              new DataField(12, "level", DataType.intType().notNull()),
              new DataField(13, "creation_time", DataType.bigint().notNull()),
              new DataField(14, "commit_snapshot", DataType.bigint().notNull()),
              // Nullable and last: manifests written before it read it as NULL (no statistics).
              new DataField(15, "value_stats", DataType.bytes())));

  private static final int CACHE_SIZE = 512;

  private final FileIO fileIO;
  private final Path directory;
  private final FileFormat format;
  private final Map<String, List<ManifestEntry>> cache =
      Collections.synchronizedMap(
          new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, List<ManifestEntry>> eldest) {
              return size() > CACHE_SIZE;
            }
          });

  /** The partition statistics of a manifest's distinct partitions; {@code null}: none kept. */
  private final Function<Collection<String>, byte[]> partitionStats;

  public ManifestFile(FileIO fileIO, Path manifestDirectory, FileFormat format) {
    this(fileIO, manifestDirectory, format, null);
  }

  /**
   * @param partitionStats the encoded partition statistics of the distinct partitions of a
   *     manifest's entries, kept in its {@link ManifestFileMeta}; {@code null} to keep none
   */
  public ManifestFile(
      FileIO fileIO,
      Path manifestDirectory,
      FileFormat format,
      Function<Collection<String>, byte[]> partitionStats) {
    this.fileIO = fileIO;
    this.directory = manifestDirectory;
    this.format = format;
    this.partitionStats = partitionStats;
  }

  public Path path(String fileName) {
    return directory.child(fileName);
  }

  /**
   * Writes a new manifest. After a failure a partial file may remain; it is unreferenced.
   *
   * @return its meta, with snapshot id -1 (the caller sets the committing snapshot)
   */
  public ManifestFileMeta write(List<ManifestEntry> entries) throws IOException {
    String name = "manifest-" + UUID.randomUUID() + "." + format.extension();
    long added = 0;
    long deleted = 0;
    Set<String> partitions = new HashSet<>();
    try (FormatWriter writer = format.createWriter(fileIO, path(name), ROW_TYPE)) {
      for (ManifestEntry e : entries) {
        DataFileMeta f = e.file();
        writer.write(
            GenericRow.of(
                e.kind().ordinal(),
                e.partition(),
                e.bucket(),
                e.totalBuckets(),
                f.fileName(),
                f.fileSize(),
                f.rowCount(),
                f.minKey(),
                f.maxKey(),
                f.minSequence(),
                f.maxSequence(),
                f.schemaId(),
                f.level(),
                f.creationTimeMillis(),
                f.commitSnapshot(),
                f.valueStats()));
        partitions.add(e.partition());
        if (e.kind() == FileKind.ADD) {
          added++;
        } else {
          deleted++;
        }
      }
    }
    cache.put(name, List.copyOf(entries));
    return new ManifestFileMeta(
        name,
        fileIO.getStatus(path(name)).length(),
        added,
        deleted,
        -1,
        partitionStats == null || partitions.isEmpty() ? null : partitionStats.apply(partitions));
  }

  /** The entries of {@code meta}, each file's unset commit snapshot filled from the meta. */
  public List<ManifestEntry> read(ManifestFileMeta meta) throws IOException {
    List<ManifestEntry> raw = cache.get(meta.fileName());
    if (raw == null) {
      raw = readFile(meta.fileName());
      cache.put(meta.fileName(), raw);
    }
    if (meta.snapshotId() < 0) {
      return raw;
    }
    List<ManifestEntry> resolved = new ArrayList<>(raw.size());
    for (ManifestEntry e : raw) {
      resolved.add(
          e.file().commitSnapshot() >= 0
              ? e
              : new ManifestEntry(
                  e.kind(),
                  e.partition(),
                  e.bucket(),
                  e.totalBuckets(),
                  e.file().withCommitSnapshot(meta.snapshotId())));
    }
    return resolved;
  }

  private List<ManifestEntry> readFile(String name) throws IOException {
    List<ManifestEntry> entries = new ArrayList<>();
    try (FormatReader reader = format.createReader(fileIO, path(name), ROW_TYPE)) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        DataFileMeta file =
            new DataFileMeta(
                (String) r.get(4),
                (Long) r.get(5),
                (Long) r.get(6),
                (byte[]) r.get(7),
                (byte[]) r.get(8),
                (Long) r.get(9),
                (Long) r.get(10),
                (Long) r.get(11),
                (Integer) r.get(12),
                (Long) r.get(13),
                (Long) r.get(14),
                (byte[]) r.get(15));
        entries.add(
            new ManifestEntry(
                FileKind.values()[(Integer) r.get(0)],
                (String) r.get(1),
                (Integer) r.get(2),
                (Integer) r.get(3),
                file));
      }
    } catch (IOException | RuntimeException e) {
      throw dev.lockstep.engine.snapshot.DamagedFileException.wrap(
          "manifest", fileIO, path(name), e);
    }
    return List.copyOf(entries);
  }

  /** Deletes a manifest that nothing references (an abandoned commit attempt's). */
  public void deleteQuietly(String fileName) {
    cache.remove(fileName);
    try {
      fileIO.delete(path(fileName), false);
    } catch (IOException e) {
      // An orphan manifest is harmless; orphan-file removal collects it.
    }
  }
}
