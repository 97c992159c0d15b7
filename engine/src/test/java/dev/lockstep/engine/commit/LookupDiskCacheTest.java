package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk tier of the {@code lookup} cache (LookupCache, LookupDiskCache): local byte copies of
 * the data files the lookup reads, bounded by {@code lookup.cache-max-disk-size} (least recently
 * used deleted first), read instead of the store once a file has left memory; a broken local disk
 * falls back to the store without failing a commit; the directory goes on close and the directories
 * of dead caches are reclaimed. The store is the local file system behind a {@link
 * FaultInjectingStore}, which counts the reads of each data file (the disk tier is not used on a
 * bare local store, whose files are local already).
 */
class LookupDiskCacheTest {

  @TempDir java.nio.file.Path dir;
  @TempDir java.nio.file.Path cacheDir;

  private static final Identifier ID = new Identifier("db", "kv");

  /** Store reads per data file name. */
  private final Map<String, AtomicLong> reads = new ConcurrentHashMap<>();

  private FaultInjectingStore store() {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (path.parent().name().startsWith("bucket-")) {
            reads.computeIfAbsent(path.name(), n -> new AtomicLong()).incrementAndGet();
          }
        });
    return io;
  }

  private long reads(String fileName) {
    AtomicLong n = reads.get(fileName);
    return n == null ? 0 : n.get();
  }

  private FileStoreTable create(Map<String, String> options) throws IOException {
    Map<String, String> all = new HashMap<>(options);
    all.put("bucket", "1");
    all.put("write-only", "true"); // no compaction: the files stay as written
    all.putIfAbsent("lookup.cache-dir", cacheDir.toString());
    return new FileSystemCatalog(store(), Path.of(dir.toString()), Map.of())
        .createTable(
            ID,
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .options(all)
                .build());
  }

  /** Writes keys {@code from..to-1} with value {@code value}, committed by {@code commit}. */
  private static void write(
      FileStoreTable table, TableCommit commit, long identifier, int from, int to, String value)
      throws IOException {
    try (TableWrite write = table.newWrite("w")) {
      for (int k = from; k < to; k++) {
        write.write(GenericRow.of(k, value + "-" + k));
      }
      commit.commit(identifier, write.prepareCommit());
    }
  }

  private static List<DataFileMeta> liveFiles(FileStoreTable table) throws IOException {
    List<DataFileMeta> files = new ArrayList<>();
    for (ManifestEntry e :
        new FileStoreScan(table)
            .liveFiles(table.snapshotManager().get(table.snapshotManager().latestId().getAsLong()))
            .values()) {
      files.add(e.file());
    }
    files.sort(Comparator.comparingLong(DataFileMeta::commitSnapshot));
    return files;
  }

  private static long localBytes(java.nio.file.Path root) throws IOException {
    if (root == null || !Files.exists(root)) {
      return 0;
    }
    try (Stream<java.nio.file.Path> all = Files.walk(root)) {
      return all.filter(Files::isRegularFile)
          .mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              })
          .sum();
    }
  }

  private static int rows(FormatReader reader) throws IOException {
    int n = 0;
    try (reader) {
      while (reader.next() != null) {
        n++;
      }
    }
    return n;
  }

  /**
   * Four files of 200 rows, a 1 KiB memory tier (holds none of them) and a disk bound of the two
   * largest files: a sequence of opens reads the store exactly when an LRU model of the same sizes
   * misses, and the bytes under the cache directory never exceed the bound.
   */
  @Test
  void diskBoundHoldsAndTheLeastRecentlyUsedCopyGoesFirst() throws IOException {
    FileStoreTable table = create(Map.of());
    try (TableCommit commit = table.newCommit("w")) {
      for (int i = 0; i < 4; i++) {
        write(table, commit, i + 1, i * 200, i * 200 + 200, "v");
      }
    }
    List<DataFileMeta> files = liveFiles(table);
    assertThat(files).hasSize(4);
    long[] sizes = files.stream().mapToLong(DataFileMeta::fileSize).sorted().toArray();
    long bound = sizes[3] + sizes[2];
    assertThat(sizes[0] * 3).as("three files never fit in the bound").isGreaterThan(bound);
    FileStoreTable cached =
        table.copyWithOptions(
            Map.of(
                "lookup.cache-max-memory-size",
                "1 kb",
                "lookup.cache-max-disk-size",
                String.valueOf(bound)));
    BucketId bucket = new BucketId("", 0);
    int[] sequence = {0, 1, 2, 1, 3, 0, 2, 2, 3, 1, 0, 0};
    LinkedHashMap<String, Long> model = new LinkedHashMap<>(16, 0.75f, true);
    long modelBytes = 0;
    try (LookupCache cache = new LookupCache(cached)) {
      for (int i : sequence) {
        DataFileMeta file = files.get(i);
        long before = reads(file.fileName());
        assertThat(rows(cache.open(bucket, file))).isEqualTo(200);
        boolean modelHit = model.get(file.fileName()) != null;
        if (!modelHit) {
          var eldest = model.entrySet().iterator();
          while (modelBytes + file.fileSize() > bound && eldest.hasNext()) {
            modelBytes -= eldest.next().getValue();
            eldest.remove();
          }
          model.put(file.fileName(), file.fileSize());
          modelBytes += file.fileSize();
        }
        assertThat(reads(file.fileName()) - before)
            .as("store reads of file %d (an LRU of two copies holds %s)", i, model.keySet())
            .isEqualTo(modelHit ? 0 : 1);
        assertThat(localBytes(cache.diskDirectory())).isLessThanOrEqualTo(bound);
        assertThat(cache.diskBytes()).isEqualTo(modelBytes).isLessThanOrEqualTo(bound);
        try (Stream<java.nio.file.Path> copies = Files.list(cache.diskDirectory())) {
          assertThat(copies.map(p -> p.getFileName().toString().replaceFirst("^[0-9]+-", "")))
              .containsExactlyInAnyOrderElementsOf(model.keySet());
        }
      }
      assertThat(cache.hits()).as("the 1 KiB memory tier holds no file").isZero();
      assertThat(cache.diskHits()).isPositive();
    }
  }

  /**
   * Through commits: with a 1 KiB memory tier, the third commit's lookup of the first file reads
   * its local copy; without a disk tier it reads the store again, once for each of the lookup's two
   * merges (before and after the commit's files).
   */
  @Test
  void aFileEvictedFromMemoryIsReadFromItsLocalCopyNotTheStore() throws IOException {
    assertThat(thirdCommitReadsOfTheFirstFile(Map.of("lookup.cache-max-disk-size", "1 gb")))
        .isZero();
    assertThat(lastDiskDirectory).as("the disk tier was used").isNotNull();
    assertThat(thirdCommitReadsOfTheFirstFile(Map.of("lookup.cache-max-disk-size", "0")))
        .isEqualTo(2);
  }

  /**
   * A cache directory that cannot be created (its parent is a file): the commits succeed with the
   * exact changelog, reading the store as without a disk tier, and the cache drops its disk.
   */
  @Test
  void anUnusableCacheDirectoryFallsBackToTheStore() throws IOException {
    java.nio.file.Path notADirectory = Files.writeString(dir.resolve("a-file"), "x");
    assertThat(
            thirdCommitReadsOfTheFirstFile(
                Map.of("lookup.cache-dir", notADirectory.resolve("sub").toString())))
        .isEqualTo(2);
    assertThat(lastDiskDirectory).as("the disk tier is dropped").isNull();
  }

  /** The disk tier's directory after the last {@link #thirdCommitReadsOfTheFirstFile}. */
  private java.nio.file.Path lastDiskDirectory;

  /** Three commits of keys 0..199; the store reads of the first file in the third. */
  private long thirdCommitReadsOfTheFirstFile(Map<String, String> options) throws IOException {
    reads.clear();
    java.nio.file.Path warehouse = Files.createTempDirectory(dir, "wh");
    Map<String, String> all = new HashMap<>(options);
    all.put("bucket", "1");
    all.put("write-only", "true");
    all.put("changelog-producer", "lookup");
    all.put("lookup.cache-max-memory-size", "1 kb");
    all.putIfAbsent("lookup.cache-dir", cacheDir.toString());
    FileStoreTable table =
        new FileSystemCatalog(store(), Path.of(warehouse.toString()), Map.of())
            .createTable(
                ID,
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .options(all)
                    .build());
    try (TableCommit commit = table.newCommit("w")) {
      write(table, commit, 1, 0, 200, "a");
      String first = liveFiles(table).get(0).fileName();
      write(table, commit, 2, 0, 200, "b");
      long before = reads(first);
      write(table, commit, 3, 0, 200, "c");
      assertThat(changelog(table, 3)).hasSize(400).first().isEqualTo("-U 0 b-0");
      lastDiskDirectory = commit.lookupCache().diskDirectory();
      return reads(first) - before;
    }
  }

  /** The changelog rows of snapshot {@code id}, as "kind key value". */
  private static List<String> changelog(FileStoreTable table, long id) throws IOException {
    StreamTableScan stream = table.copyWithOptions(Map.of("scan.snapshot-id", "1")).newStreamScan();
    for (Optional<Changes> c = stream.next(); c.isPresent(); c = stream.next()) {
      if (c.get().snapshotId() == id) {
        List<String> out = new ArrayList<>();
        for (StreamTableScan.Change r : c.get().rows()) {
          out.add(r.kind().shortString() + " " + r.row().get(0) + " " + r.row().get(1));
        }
        return out;
      }
    }
    throw new AssertionError("no changes in snapshot " + id);
  }

  /**
   * The local copies vanish between commits (a disk wiped, a tmp cleaner): the next commit succeeds
   * with the exact changelog, reading the store, and the cache stops using the disk.
   */
  @Test
  void localCopiesThatVanishFallBackToTheStore() throws IOException {
    FileStoreTable table =
        create(Map.of("changelog-producer", "lookup", "lookup.cache-max-memory-size", "1 kb"));
    try (TableCommit commit = table.newCommit("w")) {
      write(table, commit, 1, 0, 200, "a");
      String first = liveFiles(table).get(0).fileName();
      write(table, commit, 2, 0, 200, "b");
      java.nio.file.Path copies = commit.lookupCache().diskDirectory();
      assertThat(copies).isDirectory();
      deleteTree(copies);
      long before = reads(first);
      write(table, commit, 3, 0, 200, "c");
      assertThat(reads(first) - before).as("once per merge, before and after").isEqualTo(2);
      assertThat(commit.lookupCache().diskDirectory()).isNull();
      assertThat(changelog(table, 3)).hasSize(400).first().isEqualTo("-U 0 b-0");
      write(table, commit, 4, 0, 200, "d");
      assertThat(changelog(table, 4)).hasSize(400).first().isEqualTo("-U 0 c-0");
    }
  }

  /**
   * Close removes the directory and its lock file; a new cache removes what a dead one left (an
   * unlocked lock file, or none) and keeps what a live one holds: a cache of this JVM, or a lock
   * held through a channel of this test, as another process would hold it.
   */
  @Test
  void closeRemovesTheDirectoryAndDeadCachesAreReclaimed() throws IOException {
    java.nio.file.Path dead = Files.createDirectory(cacheDir.resolve("lockstep-lookup-dead"));
    Files.writeString(dead.resolve("0-data.parquet"), "left over");
    Files.writeString(cacheDir.resolve("lockstep-lookup-dead.lock"), "");
    java.nio.file.Path lockless = Files.createDirectory(cacheDir.resolve("lockstep-lookup-x"));
    java.nio.file.Path held = Files.createDirectory(cacheDir.resolve("lockstep-lookup-o"));
    java.nio.file.Path unrelated = Files.createDirectory(cacheDir.resolve("mine"));
    FileStoreTable table =
        create(Map.of("changelog-producer", "lookup", "lookup.cache-max-memory-size", "1 kb"));
    try (FileChannel channel =
            FileChannel.open(
                cacheDir.resolve("lockstep-lookup-o.lock"),
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock = channel.lock();
        TableCommit live = table.newCommit("live")) {
      write(table, live, 1, 0, 200, "a");
      write(table, live, 2, 0, 200, "b");
      java.nio.file.Path liveDir = live.lookupCache().diskDirectory();
      assertThat(liveDir).isDirectory();
      assertThat(dead).doesNotExist();
      assertThat(cacheDir.resolve("lockstep-lookup-dead.lock")).doesNotExist();
      assertThat(lockless).doesNotExist();
      assertThat(held).as("its lock is held").isDirectory();
      assertThat(unrelated).isDirectory();
      java.nio.file.Path secondDir;
      try (TableCommit second = table.newCommit("second")) {
        write(table, second, 3, 0, 200, "c");
        write(table, second, 4, 0, 200, "d");
        secondDir = second.lookupCache().diskDirectory();
        assertThat(secondDir).isDirectory().isNotEqualTo(liveDir);
        assertThat(liveDir).as("held by a live cache of this JVM").isDirectory();
        assertThat(held).as("its lock is held").isDirectory();
      }
      assertThat(secondDir).doesNotExist();
      assertThat(secondDir.resolveSibling(secondDir.getFileName() + ".lock")).doesNotExist();
      assertThat(lock.isValid()).isTrue();
      live.close();
      assertThat(liveDir).doesNotExist();
      assertThat(liveDir.resolveSibling(liveDir.getFileName() + ".lock")).doesNotExist();
    }
    try (Stream<java.nio.file.Path> left = Files.list(cacheDir)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("mine", "lockstep-lookup-o", "lockstep-lookup-o.lock");
    }
  }

  private static void deleteTree(java.nio.file.Path root) throws IOException {
    try (Stream<java.nio.file.Path> all = Files.walk(root)) {
      for (java.nio.file.Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
