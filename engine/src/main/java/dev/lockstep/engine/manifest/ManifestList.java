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
import java.util.List;
import java.util.UUID;

/**
 * Manifest lists ({@code manifest/manifest-list-<uuid>.avro}): the manifests a snapshot consists
 * of. Small; a commit attempt writes fresh ones while reusing the manifests they name.
 */
public final class ManifestList {

  static final RowType ROW_TYPE =
      new RowType(
          List.of(
              new DataField(0, "file_name", DataType.string().notNull()),
              new DataField(1, "file_size", DataType.bigint().notNull()),
              new DataField(2, "num_added", DataType.bigint().notNull()),
              new DataField(3, "num_deleted", DataType.bigint().notNull()),
              new DataField(4, "snapshot_id", DataType.bigint().notNull()),
              // Nullable and last: lists written before it read it as NULL (no statistics).
              new DataField(5, "partition_stats", DataType.bytes())));

  private final FileIO fileIO;
  private final Path directory;
  private final FileFormat format;
  private final java.util.Map<String, List<ManifestFileMeta>> cache =
      java.util.Collections.synchronizedMap(
          new java.util.LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(
                java.util.Map.Entry<String, List<ManifestFileMeta>> e) {
              return size() > 256;
            }
          });

  public ManifestList(FileIO fileIO, Path manifestDirectory, FileFormat format) {
    this.fileIO = fileIO;
    this.directory = manifestDirectory;
    this.format = format;
  }

  /** Writes a new list; returns its file name. A failure may leave an unreferenced partial file. */
  public String write(List<ManifestFileMeta> metas) throws IOException {
    String name = "manifest-list-" + UUID.randomUUID() + "." + format.extension();
    try (FormatWriter writer = format.createWriter(fileIO, directory.child(name), ROW_TYPE)) {
      for (ManifestFileMeta m : metas) {
        writer.write(
            GenericRow.of(
                m.fileName(),
                m.fileSize(),
                m.numAdded(),
                m.numDeleted(),
                m.snapshotId(),
                m.partitionStats()));
      }
    }
    cache.put(name, List.copyOf(metas));
    return name;
  }

  /** The manifests a list names (cached: lists never change). */
  public List<ManifestFileMeta> read(String name) throws IOException {
    List<ManifestFileMeta> cached = cache.get(name);
    if (cached != null) {
      return cached;
    }
    List<ManifestFileMeta> metas = new ArrayList<>();
    try (FormatReader reader = format.createReader(fileIO, directory.child(name), ROW_TYPE)) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        metas.add(
            new ManifestFileMeta(
                (String) r.get(0),
                (Long) r.get(1),
                (Long) r.get(2),
                (Long) r.get(3),
                (Long) r.get(4),
                (byte[]) r.get(5)));
      }
    } catch (IOException | RuntimeException e) {
      throw dev.lockstep.engine.snapshot.DamagedFileException.wrap(
          "manifest list", fileIO, directory.child(name), e);
    }
    cache.put(name, List.copyOf(metas));
    return metas;
  }

  /** Deletes a list that nothing references (an abandoned commit attempt's). */
  public void deleteQuietly(String name) {
    cache.remove(name);
    try {
      fileIO.delete(directory.child(name), false);
    } catch (IOException e) {
      // An orphan list is harmless; orphan-file removal collects it.
    }
  }
}
