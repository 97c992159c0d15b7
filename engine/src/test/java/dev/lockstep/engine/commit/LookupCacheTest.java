package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code lookup} producer's cache of decoded committed files (LookupCache): it returns a file's
 * rows whether cached or not, holds at most {@code lookup.cache-max-memory-size} (a file larger
 * than that is not cached; the least recently used file goes first, a file that fits exactly
 * stays), and counts hits and misses. Real local store; three committed files of one row each, of
 * the same estimated size.
 */
class LookupCacheTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable table;
  private final List<BucketId> buckets = new ArrayList<>();
  private final List<DataFileMeta> files = new ArrayList<>();

  /** Three committed files (one row each, keys 1..3, values of 600 characters). */
  private void threeFiles() throws IOException {
    table =
        new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of())
            .createTable(
                new Identifier("db", "kv"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .option("bucket", "1")
                    .option("write-only", "true")
                    .build());
    for (int k = 1; k <= 3; k++) {
      try (TableWrite write = table.newWrite("w")) {
        write.write(GenericRow.of(k, String.valueOf((char) ('a' + k)).repeat(600)));
        List<CommitMessage> messages = write.prepareCommit();
        CommitMessage m = messages.get(0);
        buckets.add(new BucketId(m.partition(), m.bucket()));
        files.add(m.newFiles().get(0));
        table.newCommit("w").commit(k, messages);
      }
    }
  }

  private LookupCache cache(long maxBytes) {
    return new LookupCache(
        table.copyWithOptions(Map.of("lookup.cache-max-memory-size", maxBytes + " b")));
  }

  /** Opens file {@code i} and checks that its one row is key {@code i + 1}. */
  private void open(LookupCache cache, int i) throws IOException {
    try (FormatReader reader = cache.open(buckets.get(i), files.get(i))) {
      GenericRow row = reader.next();
      assertThat(row).isNotNull();
      assertThat(row.get(0)).isEqualTo(i + 1);
      assertThat(reader.next()).isNull();
    }
  }

  /** The estimated size of one file (all three have the same). */
  private long fileSize() throws IOException {
    LookupCache probe = cache(1 << 20);
    open(probe, 0);
    long size = probe.bytes();
    open(probe, 1);
    assertThat(probe.bytes()).isEqualTo(2 * size);
    assertThat(size).isGreaterThanOrEqualTo(1024);
    return size;
  }

  @Test
  void aCachedFileIsReadOnceAndItsRowsReturnedEachTime() throws Exception {
    threeFiles();
    LookupCache cache = cache(1 << 20);

    open(cache, 0);
    open(cache, 0);
    open(cache, 1);

    assertThat(cache.misses()).isEqualTo(2);
    assertThat(cache.hits()).isEqualTo(1);
    assertThat(cache.bytes()).isEqualTo(2 * fileSize());
  }

  @Test
  void theLeastRecentlyUsedFileIsEvictedAndTwoThatFitExactlyStay() throws Exception {
    threeFiles();
    long size = fileSize();
    LookupCache cache = cache(2 * size);

    open(cache, 0);
    open(cache, 1);
    assertThat(cache.bytes()).as("two files fit exactly").isEqualTo(2 * size);
    open(cache, 0); // hit: 0 is now the most recently used
    open(cache, 2); // evicts 1
    assertThat(cache.bytes()).isEqualTo(2 * size);
    open(cache, 0); // still cached
    open(cache, 1); // evicted: read again

    assertThat(cache.hits()).isEqualTo(2);
    assertThat(cache.misses()).isEqualTo(4);
    assertThat(cache.bytes()).isLessThanOrEqualTo(2 * size);
  }

  @Test
  void aFileOfExactlyTheLimitIsCachedALargerOneIsNot() throws Exception {
    threeFiles();
    long size = fileSize();
    LookupCache exact = cache(size);
    open(exact, 0);
    open(exact, 0);
    assertThat(exact.hits()).isEqualTo(1);
    assertThat(exact.bytes()).isEqualTo(size);

    LookupCache small = cache(size - 1);
    open(small, 0);
    open(small, 0);
    assertThat(small.hits()).isZero();
    assertThat(small.misses()).isEqualTo(2);
    assertThat(small.bytes()).isZero();
  }

  @Test
  void filesNoLongerLiveInTheLookedUpBucketsAreForgotten() throws Exception {
    threeFiles();
    long size = fileSize();
    LookupCache cache = cache(1 << 20);
    open(cache, 0);
    open(cache, 1);
    open(cache, 2);
    assertThat(cache.bytes()).isEqualTo(3 * size);

    // Another bucket's lookup: the files of this one stay.
    cache.retainLive(java.util.Set.of("bucket-9"), java.util.Set.of());
    assertThat(cache.bytes()).isEqualTo(3 * size);
    // This bucket, where only file 1 is live now (0 and 2 were compacted away).
    cache.retainLive(
        java.util.Set.of(buckets.get(0).directory()),
        java.util.Set.of(LookupCache.key(buckets.get(1), files.get(1).fileName())));
    assertThat(cache.bytes()).isEqualTo(size);
    open(cache, 1);
    assertThat(cache.hits()).isEqualTo(1);
    open(cache, 0);
    assertThat(cache.misses()).isEqualTo(4);
  }
}
