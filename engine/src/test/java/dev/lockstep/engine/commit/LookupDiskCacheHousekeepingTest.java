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
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The housekeeping of the {@code lookup} cache's disk tier (LookupCache, LookupDiskCache): the
 * copies of files no longer live are deleted and their bytes given back to the bound; a file of
 * exactly the bound is copied; a file that is not of its recorded size leaves no copy and no
 * reserved bytes; a local failure while deleting a copy drops the tier (its directory removed) and
 * the lookup reads the store; a closed tier hands out no copy; no stream or channel is left open on
 * a copy, nor on the lock file once closed. The store is the local file system behind a {@link
 * FaultInjectingStore} (the disk tier is not used on a bare local store), which counts the reads of
 * each data file.
 */
class LookupDiskCacheHousekeepingTest {

  @TempDir java.nio.file.Path dir;
  @TempDir java.nio.file.Path cacheDir;

  private static final Identifier ID = new Identifier("db", "kv");
  private static final BucketId BUCKET = new BucketId("", 0);

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

  private long reads(DataFileMeta file) {
    AtomicLong n = reads.get(file.fileName());
    return n == null ? 0 : n.get();
  }

  private FileStoreTable create(Map<String, String> options) throws IOException {
    Map<String, String> all = new HashMap<>(options);
    all.put("bucket", "1");
    all.put("write-only", "true"); // no compaction but the test's own
    all.put("lookup.cache-dir", cacheDir.toString());
    all.put("lookup.cache-max-memory-size", "1 kb"); // holds none of the files
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

  /** Three committed files of 200 rows each (keys 0..599), oldest first. */
  private List<DataFileMeta> threeFiles(FileStoreTable table) throws IOException {
    try (TableCommit commit = table.newCommit("w")) {
      for (int i = 0; i < 3; i++) {
        write(table, commit, i + 1, i * 200, i * 200 + 200, "v");
      }
    }
    List<DataFileMeta> files = liveFiles(table);
    assertThat(files).hasSize(3);
    return files;
  }

  private static LookupCache cache(FileStoreTable table, long maxDiskBytes) {
    return new LookupCache(
        table.copyWithOptions(Map.of("lookup.cache-max-disk-size", maxDiskBytes + " b")));
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

  /** Opens {@code file} through {@code cache}; returns the store reads it made. */
  private long open(LookupCache cache, DataFileMeta file) throws IOException {
    long before = reads(file);
    assertThat(rows(cache.open(BUCKET, file))).isEqualTo(file.rowCount());
    return reads(file) - before;
  }

  /** The names of the data files of which {@code copies} holds a local copy. */
  private static List<String> copied(java.nio.file.Path copies) throws IOException {
    if (copies == null || !Files.exists(copies)) {
      return List.of();
    }
    try (Stream<java.nio.file.Path> all = Files.list(copies)) {
      return all.map(p -> p.getFileName().toString().replaceFirst("^[0-9]+-", "")).toList();
    }
  }

  private static long bytesOnDisk(java.nio.file.Path copies) throws IOException {
    if (copies == null || !Files.exists(copies)) {
      return 0;
    }
    try (Stream<java.nio.file.Path> all = Files.list(copies)) {
      long sum = 0;
      for (java.nio.file.Path p : all.toList()) {
        sum += Files.size(p);
      }
      return sum;
    }
  }

  /** The local copy of {@code file} in {@code copies}. */
  private static java.nio.file.Path copyOf(java.nio.file.Path copies, DataFileMeta file)
      throws IOException {
    try (Stream<java.nio.file.Path> all = Files.list(copies)) {
      return all.filter(p -> p.getFileName().toString().endsWith("-" + file.fileName()))
          .findFirst()
          .orElseThrow();
    }
  }

  /** Replaces a local copy by a non-empty directory: deleting it fails as a broken disk would. */
  private static void makeUndeletable(java.nio.file.Path copy) throws IOException {
    Files.delete(copy);
    Files.createDirectory(copy);
    Files.writeString(copy.resolve("blocker"), "x");
  }

  private List<String> cacheDirectories() throws IOException {
    try (Stream<java.nio.file.Path> all = Files.list(cacheDir)) {
      return all.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith(LookupDiskCache.PREFIX))
          .toList();
    }
  }

  /**
   * The files of this JVM that are open under {@code root} (Linux: the links of /proc/self/fd), as
   * paths relative to it ("(deleted)" appended to a file deleted while open).
   */
  private static List<String> openFilesUnder(java.nio.file.Path root) throws IOException {
    java.nio.file.Path fds = java.nio.file.Path.of("/proc/self/fd");
    assertThat(Files.isDirectory(fds)).as("/proc/self/fd lists this JVM's open files").isTrue();
    java.nio.file.Path real = root.toRealPath();
    List<String> open = new ArrayList<>();
    try (Stream<java.nio.file.Path> all = Files.list(fds)) {
      for (java.nio.file.Path fd : all.toList()) {
        try {
          java.nio.file.Path target = Files.readSymbolicLink(fd);
          if (target.startsWith(real)) {
            open.add(real.relativize(target).toString());
          }
        } catch (IOException | UnsupportedOperationException e) {
          // Closed since it was listed (the listing's own descriptor, say).
        }
      }
    }
    return open;
  }

  /** A bound of exactly a file's size holds its copy; one byte less holds none. */
  @Test
  void aFileOfExactlyTheDiskBoundIsCopiedALargerOneIsNot() throws IOException {
    FileStoreTable table = create(Map.of());
    DataFileMeta file = threeFiles(table).get(0);

    try (LookupCache exact = cache(table, file.fileSize())) {
      assertThat(open(exact, file)).isEqualTo(1);
      assertThat(open(exact, file)).as("read from its copy").isZero();
      assertThat(exact.diskHits()).isEqualTo(1);
      assertThat(copied(exact.diskDirectory())).containsExactly(file.fileName());
      assertThat(exact.diskBytes()).isEqualTo(file.fileSize());
    }
    try (LookupCache smaller = cache(table, file.fileSize() - 1)) {
      assertThat(open(smaller, file)).isEqualTo(1);
      assertThat(open(smaller, file)).as("no copy: read from the store").isEqualTo(1);
      assertThat(smaller.diskHits()).isZero();
      assertThat(smaller.diskBytes()).isZero();
    }
  }

  /**
   * A file whose bytes in the store are not of its recorded size (one byte less, one byte more) is
   * read from the store (after the copy attempt) and leaves neither a copy nor reserved bytes: with
   * a bound of exactly two files, copies of both are then made and kept, and reading either again
   * reads no store.
   */
  @Test
  void aFileNotOfItsRecordedSizeLeavesNoCopyAndNoReservedBytes() throws IOException {
    FileStoreTable table = create(Map.of());
    List<DataFileMeta> files = threeFiles(table);
    DataFileMeta a = files.get(0);
    DataFileMeta b = files.get(1);
    try (LookupCache cache = cache(table, a.fileSize() + b.fileSize())) {
      for (long wrong : new long[] {a.fileSize() - 1, a.fileSize() + 1}) {
        DataFileMeta misSized = withFileSize(a, wrong);
        assertThat(open(cache, misSized)).as("the copy attempt, then the read").isEqualTo(2);
        assertThat(copied(cache.diskDirectory())).as("recorded %d bytes", wrong).isEmpty();
        assertThat(cache.diskBytes()).as("recorded %d bytes", wrong).isZero();
      }
      assertThat(open(cache, a)).isEqualTo(1);
      assertThat(open(cache, b)).isEqualTo(1);
      assertThat(open(cache, a)).as("both copies fit the bound").isZero();
      assertThat(open(cache, b)).isZero();
      assertThat(copied(cache.diskDirectory()))
          .containsExactlyInAnyOrder(a.fileName(), b.fileName());
      assertThat(cache.diskBytes()).isEqualTo(bytesOnDisk(cache.diskDirectory()));
    }
  }

  private static DataFileMeta withFileSize(DataFileMeta f, long size) {
    return new DataFileMeta(
        f.fileName(),
        size,
        f.rowCount(),
        f.minKey(),
        f.maxKey(),
        f.minSequence(),
        f.maxSequence(),
        f.schemaId(),
        f.level(),
        f.creationTimeMillis(),
        f.commitSnapshot(),
        f.valueStats());
  }

  /**
   * The copies of files no longer live in a looked-up bucket are deleted and their bytes given
   * back; another bucket's lookup keeps them; a forgotten file looked up again (a rollback brought
   * it back) is read from the store once into a new copy, and the tier stays in use.
   */
  @Test
  void copiesOfFilesNoLongerLiveAreDeletedAndTheirBytesGivenBack() throws IOException {
    FileStoreTable table = create(Map.of());
    List<DataFileMeta> files = threeFiles(table);
    try (LookupCache cache = cache(table, 1L << 30)) {
      for (DataFileMeta f : files) {
        assertThat(open(cache, f)).isEqualTo(1);
      }
      java.nio.file.Path copies = cache.diskDirectory();
      assertThat(copied(copies)).hasSize(3);

      cache.retainLive(Set.of("bucket-9"), Set.of());
      assertThat(copied(copies)).as("another bucket's lookup").hasSize(3);

      cache.retainLive(
          Set.of(BUCKET.directory()), Set.of(LookupCache.key(BUCKET, files.get(1).fileName())));
      assertThat(copied(copies)).containsExactly(files.get(1).fileName());
      assertThat(cache.diskBytes())
          .isEqualTo(files.get(1).fileSize())
          .isEqualTo(bytesOnDisk(copies));

      assertThat(open(cache, files.get(0))).as("forgotten: read anew").isEqualTo(1);
      assertThat(open(cache, files.get(0))).as("from its new copy").isZero();
      assertThat(open(cache, files.get(1))).as("kept").isZero();
      assertThat(cache.diskDirectory()).isEqualTo(copies);
      assertThat(copied(copies))
          .containsExactlyInAnyOrder(files.get(0).fileName(), files.get(1).fileName());
      assertThat(cache.diskBytes()).isEqualTo(bytesOnDisk(copies));
    }
  }

  /**
   * Through commits: once a compaction has replaced the bucket's files, the next lookup commit
   * deletes the copies of the compacted-away files and keeps only the live file's; its changelog is
   * exact.
   */
  @Test
  void aLookupCommitAfterACompactionDeletesTheCopiesOfTheCompactedFiles() throws IOException {
    FileStoreTable table = create(Map.of("changelog-producer", "lookup"));
    try (TableCommit commit = table.newCommit("w")) {
      write(table, commit, 1, 0, 200, "a");
      DataFileMeta first = liveFiles(table).get(0);
      write(table, commit, 2, 0, 200, "b");
      java.nio.file.Path copies = commit.lookupCache().diskDirectory();
      assertThat(copied(copies)).containsExactly(first.fileName());

      try (TableWrite write = table.newWrite("w")) {
        write.compact(true);
        commit.commit(3, write.prepareCommit());
      }
      List<DataFileMeta> live = liveFiles(table);
      assertThat(live).hasSize(1);
      assertThat(live.get(0).fileName()).isNotEqualTo(first.fileName());

      write(table, commit, 4, 0, 200, "c");
      assertThat(changelog(table, 4)).hasSize(400).startsWith("-U 0 b-0", "+U 0 c-0");
      assertThat(commit.lookupCache().diskDirectory()).isEqualTo(copies);
      assertThat(copied(copies))
          .as("the compacted-away file's copy is deleted")
          .containsExactly(live.get(0).fileName());
      assertThat(commit.lookupCache().diskBytes()).isEqualTo(bytesOnDisk(copies));
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
   * A copy of a file no longer live that cannot be deleted (the local disk fails): the tier is
   * dropped, its directory removed, and every later open reads the store without a new copy.
   */
  @Test
  void aLocalFailureDeletingADeadCopyDropsTheTier() throws IOException {
    FileStoreTable table = create(Map.of());
    List<DataFileMeta> files = threeFiles(table);
    try (LookupCache cache = cache(table, 1L << 30)) {
      for (DataFileMeta f : files) {
        assertThat(open(cache, f)).isEqualTo(1);
      }
      java.nio.file.Path copies = cache.diskDirectory();
      makeUndeletable(copyOf(copies, files.get(0)));

      cache.retainLive(
          Set.of(BUCKET.directory()),
          Set.of(
              LookupCache.key(BUCKET, files.get(1).fileName()),
              LookupCache.key(BUCKET, files.get(2).fileName())));

      assertThat(cache.diskDirectory()).as("the tier is dropped").isNull();
      assertThat(copies).doesNotExist();
      assertThat(cacheDirectories()).isEmpty();
      assertThat(open(cache, files.get(1))).as("read from the store").isEqualTo(1);
      assertThat(open(cache, files.get(1))).isEqualTo(1);
      assertThat(cacheDirectories()).as("no new copy").isEmpty();
      assertThat(cache.diskBytes()).isZero();
    }
  }

  /**
   * The least recently used copy cannot be deleted to make room (the local disk fails): the open
   * returns the file's rows from the store, the tier is dropped and its directory removed.
   */
  @Test
  void aLocalFailureEvictingACopyDropsTheTier() throws IOException {
    FileStoreTable table = create(Map.of());
    List<DataFileMeta> files = threeFiles(table);
    DataFileMeta a = files.get(0);
    DataFileMeta b = files.get(1);
    try (LookupCache cache = cache(table, Math.max(a.fileSize(), b.fileSize()))) {
      assertThat(open(cache, a)).isEqualTo(1);
      java.nio.file.Path copies = cache.diskDirectory();
      makeUndeletable(copyOf(copies, a));

      assertThat(open(cache, b)).isEqualTo(1);

      assertThat(cache.diskDirectory()).as("the tier is dropped").isNull();
      assertThat(copies).doesNotExist();
      assertThat(open(cache, a)).as("read from the store").isEqualTo(1);
      assertThat(open(cache, b)).isEqualTo(1);
      assertThat(cacheDirectories()).as("no new copy").isEmpty();
    }
  }

  /**
   * A local copy damaged in place (its bytes zeroed, its size unchanged) does not parse: its rows
   * are not trusted; the open returns the file's rows from the store, and the tier is dropped with
   * its directory.
   */
  @Test
  void aDamagedCopyIsNotTrustedAndTheTierIsDropped() throws IOException {
    FileStoreTable table = create(Map.of());
    List<DataFileMeta> files = threeFiles(table);
    DataFileMeta a = files.get(0);
    try (LookupCache cache = cache(table, 1L << 30)) {
      assertThat(open(cache, a)).isEqualTo(1);
      java.nio.file.Path copies = cache.diskDirectory();
      java.nio.file.Path copy = copyOf(copies, a);
      Files.write(copy, new byte[(int) Files.size(copy)]);

      List<GenericRow> rows = new ArrayList<>();
      long before = reads(a);
      try (FormatReader reader = cache.open(BUCKET, a)) {
        for (GenericRow r = reader.next(); r != null; r = reader.next()) {
          rows.add(r);
        }
      }
      assertThat(reads(a) - before).as("read from the store").isEqualTo(1);
      assertThat(rows).hasSize(200);
      assertThat(rows.get(0).get(0)).isEqualTo(0);
      assertThat(rows.get(199).get(0)).isEqualTo(199);
      assertThat(cache.diskDirectory()).as("the tier is dropped").isNull();
      assertThat(copies).doesNotExist();
      assertThat(open(cache, a)).isEqualTo(1);
      assertThat(cacheDirectories()).as("no new copy").isEmpty();
    }
  }

  /**
   * While the tier lives only its lock file is open (no stream left open on a copy, whether kept,
   * evicted or not of its recorded size); once closed, nothing under the cache directory is open
   * and the directory and lock file are gone.
   */
  @Test
  void noCopyStaysOpenAndCloseReleasesTheLockFile() throws IOException {
    FileStoreTable table = create(Map.of());
    List<DataFileMeta> files = threeFiles(table);
    DataFileMeta a = files.get(0);
    LookupCache cache = cache(table, a.fileSize() + files.get(1).fileSize());
    assertThat(open(cache, withFileSize(a, a.fileSize() + 1))).isEqualTo(2);
    for (DataFileMeta f : files) {
      assertThat(open(cache, f)).isEqualTo(1);
    }
    java.nio.file.Path copies = cache.diskDirectory();
    String lock = copies.getFileName() + ".lock";
    assertThat(openFilesUnder(cacheDir)).containsExactly(lock);

    cache.close();
    assertThat(openFilesUnder(cacheDir)).isEmpty();
    assertThat(copies).doesNotExist();
    assertThat(cacheDir.resolve(lock)).doesNotExist();
    cache.close(); // idempotent
  }

  /**
   * A closed tier hands out no copy (its directory is gone); a copy made after close lives in a new
   * directory and is read back byte for byte.
   */
  @Test
  void aClosedTierHandsOutNoCopy() throws IOException {
    FileStoreTable table = create(Map.of());
    DataFileMeta file = threeFiles(table).get(0);
    LocalFileIO io = new LocalFileIO();
    Path source = table.bucketPath("", 0).child(file.fileName());
    String key = LookupCache.key(BUCKET, file.fileName());
    LookupDiskCache disk = new LookupDiskCache(cacheDir, 1L << 30);

    java.nio.file.Path copy = disk.fetch(key, io, source, file.fileSize());
    assertThat(disk.get(key)).isEqualTo(copy);
    java.nio.file.Path first = disk.directory();
    disk.close();
    assertThat(first).doesNotExist();
    assertThat(disk.get(key)).as("closed: no copy").isNull();
    assertThat(disk.bytes()).isZero();
    assertThat(disk.directory()).isNull();

    java.nio.file.Path again = disk.fetch(key, io, source, file.fileSize());
    assertThat(disk.directory()).isNotEqualTo(first);
    assertThat(disk.get(key)).isEqualTo(again);
    assertThat(Files.readAllBytes(again))
        .isEqualTo(Files.readAllBytes(java.nio.file.Path.of(source.toString())));
    disk.close();
    assertThat(cacheDirectories()).isEmpty();
  }
}
