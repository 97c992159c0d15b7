package dev.lockstep.engine.index;

import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.fs.Path;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.zip.CRC32;
import org.roaringbitmap.RoaringBitmap;

/**
 * The deletion vectors of one bucket at one snapshot ({@code manifest/index-<uuid>.dv}, named by
 * the snapshot's index manifest as kind {@link IndexFileMeta#DELETION_VECTORS}; docs/engine.md,
 * "Deletion vectors"). It lists every live data file of the bucket, each with the positions (0 =
 * the file's first row) of the rows a read skips, as a RoaringBitmap (empty when none).
 *
 * <p>Layout, big-endian: the magic {@code LSDV}, a version (1), the file count; per data file its
 * name (modified UTF-8), its number of deleted rows (a long), the byte length of the bitmap and the
 * bitmap in RoaringBitmap's portable serialization; then the CRC-32 of everything before (a long).
 * Files are never changed: a commit that changes a bucket's vectors writes the bucket's file anew.
 */
public final class DeletionVectorFile {

  private static final int MAGIC = 0x4C534456; // "LSDV"
  private static final int VERSION = 1;

  private DeletionVectorFile() {}

  /** Writes the vectors of one bucket (data file name → deleted positions). */
  public static IndexFileMeta write(
      TableStore table, String partition, int bucket, Map<String, RoaringBitmap> vectors)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    long deleted = 0;
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      out.writeInt(vectors.size());
      for (Map.Entry<String, RoaringBitmap> e : new TreeMap<>(vectors).entrySet()) {
        RoaringBitmap bitmap = e.getValue();
        bitmap.runOptimize();
        out.writeUTF(e.getKey());
        long cardinality = bitmap.getLongCardinality();
        deleted += cardinality;
        out.writeLong(cardinality);
        out.writeInt(bitmap.serializedSizeInBytes());
        bitmap.serialize(out);
      }
      CRC32 crc = new CRC32();
      crc.update(bytes.toByteArray());
      out.writeLong(crc.getValue());
    }
    String name = "index-" + UUID.randomUUID() + ".dv";
    byte[] content = bytes.toByteArray();
    try (OutputStream out =
        table.fileIO().newOutputStream(table.indexManifest().path(name), false)) {
      out.write(content);
    }
    return new IndexFileMeta(
        partition, bucket, IndexFileMeta.DELETION_VECTORS, name, content.length, deleted);
  }

  /**
   * The vectors of a deletion-vector file (data file name → deleted positions).
   *
   * @throws IOException naming the file when it is damaged
   */
  public static Map<String, RoaringBitmap> read(TableStore table, String fileName)
      throws IOException {
    Path path = table.indexManifest().path(fileName);
    byte[] content;
    try (InputStream in = table.fileIO().newInputStream(path)) {
      content = in.readAllBytes();
    }
    if (content.length < 20) {
      throw damaged(path, "too short");
    }
    CRC32 crc = new CRC32();
    crc.update(content, 0, content.length - 8);
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(content));
    if (in.readInt() != MAGIC) {
      throw damaged(path, "not a deletion-vector file");
    }
    int version = in.readInt();
    if (version != VERSION) {
      throw damaged(path, "version " + version + " is not known to this engine");
    }
    in.skipNBytes(content.length - 16L);
    if (in.readLong() != crc.getValue()) {
      throw damaged(path, "checksum mismatch");
    }
    in = new DataInputStream(new ByteArrayInputStream(content, 8, content.length - 16));
    int count = in.readInt();
    Map<String, RoaringBitmap> vectors = new HashMap<>();
    for (int i = 0; i < count; i++) {
      String file = in.readUTF();
      in.readLong();
      in.readInt();
      RoaringBitmap bitmap = new RoaringBitmap();
      bitmap.deserialize(in);
      vectors.put(file, bitmap);
    }
    return vectors;
  }

  /** The deletion-vector file of each bucket that has one at {@code snapshot}. */
  public static Map<BucketId, IndexFileMeta> byBucket(TableStore table, Snapshot snapshot)
      throws IOException {
    return byBucket(table.indexManifest().read(snapshot == null ? null : snapshot.indexManifest()));
  }

  /** The deletion-vector entries of an index manifest's {@code entries}, by bucket. */
  public static Map<BucketId, IndexFileMeta> byBucket(Iterable<IndexFileMeta> entries) {
    Map<BucketId, IndexFileMeta> out = new HashMap<>();
    for (IndexFileMeta e : entries) {
      if (IndexFileMeta.DELETION_VECTORS.equals(e.indexType())) {
        out.put(new BucketId(e.partition(), e.bucket()), e);
      }
    }
    return out;
  }

  private static IOException damaged(Path path, String why) {
    return new IOException(
        "Deletion-vector file "
            + path
            + " is damaged ("
            + why
            + "); run 'lockstep table check' and restore it from a backup or roll the table back");
  }
}
