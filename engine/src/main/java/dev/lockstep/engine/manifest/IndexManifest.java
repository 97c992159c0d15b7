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
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Index manifests ({@code manifest/index-manifest-<uuid>.avro}) and the index files they name
 * ({@code manifest/index-<uuid>.hash}). A snapshot's {@code indexManifest} names every index file
 * of the table at that snapshot, like Paimon's index manifest: (partition, bucket, index kind, file
 * name, size, row count). Only the {@code HASH} kind exists so far (the key-hash index of dynamic
 * buckets); deletion-vector files can live in the same manifest under their own kind.
 *
 * <p>A {@code HASH} file holds the 4-byte key hashes that one commit assigned to one bucket (or,
 * after a merge, every hash of the bucket), big-endian, after a 4-byte count. Files are never
 * changed; a hash once committed to a bucket stays in that bucket for the life of the table.
 */
public final class IndexManifest {

  static final RowType ROW_TYPE =
      new RowType(
          List.of(
              new DataField(0, "partition", DataType.string().notNull()),
              new DataField(1, "bucket", DataType.intType().notNull()),
              new DataField(2, "index_type", DataType.string().notNull()),
              new DataField(3, "file_name", DataType.string().notNull()),
              new DataField(4, "file_size", DataType.bigint().notNull()),
              new DataField(5, "row_count", DataType.bigint().notNull())));

  private final FileIO fileIO;
  private final Path directory;
  private final FileFormat format;
  private final Map<String, List<IndexFileMeta>> cache =
      Collections.synchronizedMap(
          new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, List<IndexFileMeta>> e) {
              return size() > 64;
            }
          });

  public IndexManifest(FileIO fileIO, Path manifestDirectory, FileFormat format) {
    this.fileIO = fileIO;
    this.directory = manifestDirectory;
    this.format = format;
  }

  /** Writes a new index manifest; returns its file name. */
  public String write(List<IndexFileMeta> entries) throws IOException {
    String name = "index-manifest-" + UUID.randomUUID() + "." + format.extension();
    try (FormatWriter writer = format.createWriter(fileIO, directory.child(name), ROW_TYPE)) {
      for (IndexFileMeta e : entries) {
        writer.write(
            GenericRow.of(
                e.partition(),
                e.bucket(),
                e.indexType(),
                e.fileName(),
                e.fileSize(),
                e.rowCount()));
      }
    }
    cache.put(name, List.copyOf(entries));
    return name;
  }

  /** The entries of an index manifest; empty for {@code null} (cached: manifests never change). */
  public List<IndexFileMeta> read(String name) throws IOException {
    if (name == null) {
      return List.of();
    }
    List<IndexFileMeta> cached = cache.get(name);
    if (cached != null) {
      return cached;
    }
    List<IndexFileMeta> entries = new ArrayList<>();
    try (FormatReader reader = format.createReader(fileIO, directory.child(name), ROW_TYPE)) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        entries.add(
            new IndexFileMeta(
                (String) r.get(0),
                (Integer) r.get(1),
                (String) r.get(2),
                (String) r.get(3),
                (Long) r.get(4),
                (Long) r.get(5)));
      }
    }
    List<IndexFileMeta> result = List.copyOf(entries);
    cache.put(name, result);
    return result;
  }

  /** Writes a {@code HASH} index file of {@code count} hashes of one bucket. */
  public IndexFileMeta writeHashes(String partition, int bucket, int[] hashes, int count)
      throws IOException {
    String name = "index-" + UUID.randomUUID() + ".hash";
    Path path = directory.child(name);
    try (DataOutputStream out =
        new DataOutputStream(
            new BufferedOutputStream(fileIO.newOutputStream(path, false), 1 << 16))) {
      out.writeInt(count);
      for (int i = 0; i < count; i++) {
        out.writeInt(hashes[i]);
      }
    }
    return new IndexFileMeta(partition, bucket, IndexFileMeta.HASH, name, 4L + 4L * count, count);
  }

  /** The hashes of a {@code HASH} index file. */
  public int[] readHashes(String fileName) throws IOException {
    try (InputStream raw = fileIO.newInputStream(directory.child(fileName));
        DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
      int count = in.readInt();
      if (count < 0) {
        throw new IOException("Index file " + directory.child(fileName) + " is damaged");
      }
      int[] hashes = new int[count];
      for (int i = 0; i < count; i++) {
        hashes[i] = in.readInt();
      }
      return hashes;
    }
  }

  /** The path of a file of this directory (an index manifest or an index file). */
  public Path path(String fileName) {
    return directory.child(fileName);
  }

  /** Deletes a file nothing references (an abandoned commit attempt's); best effort. */
  public void deleteQuietly(String fileName) {
    cache.remove(fileName);
    try {
      fileIO.delete(directory.child(fileName), false);
    } catch (IOException e) {
      // An orphan is harmless; orphan-file removal collects it.
    }
  }
}
