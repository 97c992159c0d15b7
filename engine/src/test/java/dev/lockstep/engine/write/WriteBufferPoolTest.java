package dev.lockstep.engine.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code write-buffer-size} is one bound for all buckets of a {@link TableWrite}: after every write
 * the buffers of all buckets add up to less than it, a flush takes the largest buffers, and every
 * row is still read back as the last write of its key.
 */
class WriteBufferPoolTest {

  @TempDir Path dir;

  @Test
  void theBucketsShareOneBoundAndTheLargestBufferFlushesFirst() throws Exception {
    FileStoreTable table = table("shared", "8", 32);
    Random random = new Random(20);
    TreeMap<Integer, GenericRow> model = new TreeMap<>();
    int flushes = 0;
    // The bytes a row takes in a bucket's buffer, measured on a buffer of the same row type.
    BinaryWriteBuffer measure =
        new BinaryWriteBuffer(
            table.schema().rowType(), new int[] {0}, new WriteBufferPool(1 << 20));
    try (TableWrite write = table.newWrite("u")) {
      WriteBufferPool pool = write.bufferPool();
      assertThat(pool.limit()).isEqualTo(32 * 1024);
      for (int batch = 1; batch <= 3; batch++) {
        for (int i = 0; i < 2000; i++) {
          GenericRow row = row(random, batch, i);
          long rowBytes = measure.add(row, RowKind.INSERT);
          measure.clear();
          Map<MergeTreeWriter, Long> before = sizes(pool);
          if (random.nextInt(10) == 0) {
            write.delete(row);
            model.remove((Integer) row.get(0));
          } else {
            write.write(row);
            model.put((Integer) row.get(0), row);
          }
          Map<MergeTreeWriter, Long> after = sizes(pool);
          long sum = after.values().stream().mapToLong(Long::longValue).sum();
          assertThat(pool.used()).isEqualTo(sum).isLessThan(pool.limit());
          flushes += checkLargestFlushed(before, after, rowBytes);
        }
        table.newCommit("u").commit(batch, write.prepareCommit());
        assertThat(pool.used()).isZero();
      }
      // Every bucket got rows: with a bound per bucket, up to 8 x 32 kb would have been buffered.
      assertThat(pool.writers()).hasSize(8);
    }
    assertThat(flushes).isGreaterThan(50);
    List<GenericRow> read = table.newRead().readAll(table.newScan().plan());
    read.sort((x, y) -> RowComparator.compare(x, y, new int[] {0}));
    assertThat(read).containsExactlyElementsOf(model.values());
  }

  @Test
  void dynamicBucketsShareTheBoundToo() throws Exception {
    FileStoreTable dynamic = table("dynamic", "-1", 32);
    Random random = new Random(21);
    TreeMap<Integer, GenericRow> model = new TreeMap<>();
    for (int batch = 1; batch <= 3; batch++) {
      try (TableWrite write = dynamic.newWrite("u")) {
        for (int i = 0; i < 1000; i++) {
          GenericRow row = row(random, batch, i);
          write.write(row);
          model.put((Integer) row.get(0), row);
          assertThat(write.bufferPool().used()).isLessThan(write.bufferPool().limit());
        }
        dynamic.newCommit("u").commit(batch, write.prepareCommit());
      }
    }
    List<GenericRow> read = dynamic.newRead().readAll(dynamic.newScan().plan());
    read.sort((x, y) -> RowComparator.compare(x, y, new int[] {0}));
    assertThat(read).containsExactlyElementsOf(model.values());
  }

  /**
   * (k INT key, v BIGINT, s STRING) with {@code bucket} buckets (-1: dynamic, 300 keys a bucket)
   * and {@code write-buffer-size} {@code bufferKb} kb.
   */
  private FileStoreTable table(String name, String bucket, int bufferKb) throws Exception {
    return TestTables.catalog(dir)
        .createTable(
            new Identifier("db", name),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.bigint())
                .column("s", DataType.string())
                .primaryKey("k")
                .option("bucket", bucket)
                .option("dynamic-bucket.target-row-num", "300")
                .option("write-buffer-size", bufferKb + " kb")
                .build());
  }

  private static GenericRow row(Random random, int batch, int i) {
    int key = random.nextInt(3000);
    // Strings of any length, some beyond Latin-1 (two bytes a character in the heap).
    StringBuilder s = new StringBuilder();
    int length = random.nextInt(60);
    for (int c = 0; c < length; c++) {
      s.append(random.nextInt(20) == 0 ? '\u00e9' + random.nextInt(400) : 'a' + random.nextInt(26));
    }
    return GenericRow.of(key, batch * 100_000L + i, s.toString());
  }

  private static Map<MergeTreeWriter, Long> sizes(WriteBufferPool pool) {
    Map<MergeTreeWriter, Long> sizes = new HashMap<>();
    for (MergeTreeWriter writer : pool.writers()) {
      sizes.put(writer, writer.bufferedBytes());
    }
    return sizes;
  }

  /**
   * The buffers a write flushed (those that shrank) were at least as large, when flushed, as every
   * buffer it left; returns how many it flushed.
   */
  private static int checkLargestFlushed(
      Map<MergeTreeWriter, Long> before, Map<MergeTreeWriter, Long> after, long rowBytes) {
    List<MergeTreeWriter> flushed = new ArrayList<>();
    MergeTreeWriter grown = null;
    for (Map.Entry<MergeTreeWriter, Long> e : after.entrySet()) {
      long was = before.getOrDefault(e.getKey(), 0L);
      if (e.getValue() < was) {
        flushed.add(e.getKey());
        assertThat(e.getValue()).isZero();
      } else if (e.getValue() > was) {
        assertThat(e.getValue()).isEqualTo(was + rowBytes);
        grown = e.getKey();
      }
    }
    if (flushed.isEmpty()) {
      return 0;
    }
    // A flushed buffer's size when flushed: what it held, plus the row if the row went to it (when
    // no buffer grew, the row's bucket was one of the flushed: each is granted the row).
    long smallestFlushed = Long.MAX_VALUE;
    for (MergeTreeWriter writer : flushed) {
      long was = before.getOrDefault(writer, 0L);
      smallestFlushed = Math.min(smallestFlushed, was + (grown == null ? rowBytes : 0));
    }
    for (Map.Entry<MergeTreeWriter, Long> e : after.entrySet()) {
      if (!flushed.contains(e.getKey())) {
        assertThat(e.getValue()).isLessThanOrEqualTo(smallestFlushed);
      }
    }
    return flushed.size();
  }
}
