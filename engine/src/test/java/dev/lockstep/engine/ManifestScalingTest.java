package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata does not grow with history (issue 20, "Scaling of metadata"): after thousands of small
 * commits a plan reads manifests bounded by the live files, a commit writes manifests bounded by
 * what it changed (plus at most a merge of target-size manifests), every live file is found and no
 * deleted file comes back. Counted through {@link FaultInjectingStore}'s hooks on a fresh table
 * object (no cache). The commits carry data-file metadata only (no data files are written: the
 * commit path reads none). 3,000 commits by default, not 10,000: each test then takes 1.5 to 2
 * minutes on the shared 2-core machine at load 20 to 30 ({@code -Dlockstep.scale.commits=10000}
 * passed too: both tests in 293 s at load 16); 3,000 commits already take the table through more
 * than 300 base lists and dozens of merges at the small target size used here (16 kb, so that the
 * live entries fill several target-size manifests), and no bound depends on the count.
 */
class ManifestScalingTest {

  private static final int COMMITS = Integer.getInteger("lockstep.scale.commits", 3000);
  private static final long TARGET = 16 * 1024;
  private static final int MIN_COUNT = 30;
  private static final long FULL_THRESHOLD = 64 * 1024;

  /** Snapshots name at most this many delta lists besides their own (CommitLoop). */
  private static final int MAX_PRIOR_DELTAS = 8;

  @TempDir java.nio.file.Path dir;

  private final Map<String, Long> written = new ConcurrentHashMap<>();
  private final Set<String> read = ConcurrentHashMap.newKeySet();

  private FileSystemCatalog catalog(FaultInjectingStore io) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private FaultInjectingStore countingIo() {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    io.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          if (path.parent().name().equals("manifest")) {
            written.put(path.name(), 0L);
          }
        });
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (path.parent().name().equals("manifest")) {
            read.add(path.name());
          }
        });
    return io;
  }

  private FileStoreTable create(Map<String, String> extra) throws IOException {
    Map<String, String> options = new java.util.HashMap<>(extra);
    options.put("manifest.target-file-size", TARGET / 1024 + " kb");
    options.put("manifest.merge-min-count", String.valueOf(MIN_COUNT));
    options.put("manifest.full-compaction-threshold-size", FULL_THRESHOLD / 1024 + " kb");
    return catalog(countingIo())
        .createTable(
            new Identifier("db", "t"),
            Schema.newBuilder()
                .column("n", DataType.bigint())
                .option("bucket", "4")
                .options(options)
                .build());
  }

  private static DataFileMeta file(String name) {
    return new DataFileMeta(
        name,
        1000,
        10,
        null,
        null,
        0,
        9,
        0,
        0,
        System.currentTimeMillis(),
        DataFileMeta.UNCOMMITTED);
  }

  private long manifestBytes(String name) throws IOException {
    return Files.size(dir.resolve("db.db/t/manifest").resolve(name));
  }

  private long writtenBytes() throws IOException {
    long bytes = 0;
    for (String name : written.keySet()) {
      bytes += manifestBytes(name);
    }
    return bytes;
  }

  /** What a plan of the latest snapshot reads from manifest/, on a table object with no cache. */
  private record PlanRead(int files, long bytes, Set<String> dataFiles) {}

  private PlanRead plan() throws IOException {
    read.clear();
    FileStoreTable fresh = catalog(countingIo()).getTable(Identifier.parse("db.t"));
    TableScan.Plan plan = fresh.newScan().plan();
    Set<String> names = new HashSet<>();
    for (Split split : plan.splits()) {
      split.files().forEach(f -> names.add(f.fileName()));
    }
    Set<String> manifests = new HashSet<>(read);
    long bytes = 0;
    int files = 0;
    for (String name : manifests) {
      bytes += manifestBytes(name);
      if (!name.startsWith("manifest-list-")) {
        files++;
      }
    }
    return new PlanRead(files, bytes, names);
  }

  /**
   * Appends only, one new file per commit: a commit writes its delta manifest and list and, on
   * every {@value #MAX_PRIOR_DELTAS}th snapshot past the last base list, a base list and at most
   * one merge of small manifests (each below the target size, so less than twice the target
   * altogether); a plan reads the large merged manifests, which hold live entries only, plus fewer
   * than {@code merge-min-count} small ones and the snapshot's own deltas.
   */
  @Test
  void appendsKeepCommitWritesAndPlanReadsBounded() throws Exception {
    FileStoreTable table = create(Map.of());
    TableCommit commit = table.newCommit("w");
    Set<String> live = new LinkedHashSet<>();
    long bytesPerEntry = 0;
    long maxWrittenPerCommit = 0;
    for (int c = 1; c <= COMMITS; c++) {
      String name = "data-" + c + ".parquet";
      live.add(name);
      written.clear();
      commit.commit(
          c,
          List.of(new CommitMessage("", c % 4, 4, List.of(file(name)), List.of(), List.of(), 0)));
      long bytes = writtenBytes();
      maxWrittenPerCommit = Math.max(maxWrittenPerCommit, bytes);
      assertThat(bytes)
          .as("manifest bytes written by commit %d (%d live files)", c, live.size())
          .isLessThanOrEqualTo(2 * TARGET + 16 * 1024);
      if (c % 500 == 0 || c == COMMITS) {
        PlanRead plan = plan();
        assertThat(plan.dataFiles()).as("live files after %d commits", c).isEqualTo(live);
        // Every manifest at the target size or more holds live entries only; below it there are
        // fewer than merge-min-count merged ones, and the snapshot's own deltas.
        Snapshot latest = table.snapshotManager().latest().orElseThrow();
        List<ManifestFileMeta> metas = table.store().manifests(latest);
        long big = 0;
        long bigEntries = 0;
        for (ManifestFileMeta m : metas) {
          assertThat(m.numDeleted()).isZero();
          if (m.fileSize() >= TARGET) {
            big++;
            bigEntries += m.numAdded();
            bytesPerEntry = Math.max(bytesPerEntry, m.fileSize() / m.numAdded() + 1);
          }
        }
        assertThat(metas.size())
            .as("manifests of snapshot %d", latest.id())
            .isLessThanOrEqualTo((int) big + MIN_COUNT + MAX_PRIOR_DELTAS + 2);
        assertThat(bigEntries).isLessThanOrEqualTo(live.size());
        assertThat(plan.files()).isEqualTo(metas.size());
        if (bytesPerEntry > 0) {
          // O(live files): the entries of the live files, plus the small manifests and lists.
          assertThat(plan.bytes())
              .as("manifest bytes a plan of %d live files reads", live.size())
              .isLessThanOrEqualTo(
                  live.size() * bytesPerEntry + (MIN_COUNT + MAX_PRIOR_DELTAS + 4) * TARGET);
        }
      }
    }
    assertThat(maxWrittenPerCommit).isPositive();
  }

  /**
   * Appends with compactions that delete random earlier files: deleted entries cancel within a
   * merge and are dropped altogether once the manifests holding them reach the full-compaction
   * threshold. No deleted file comes back; the manifests a plan reads stay within the live files'
   * entries plus the threshold; a commit writes, on average, a bounded amount.
   */
  @Test
  void deletesAreDroppedAndNoDeletedFileResurrects() throws Exception {
    FileStoreTable table = create(Map.of());
    TableCommit commit = table.newCommit("w");
    Random random = new Random(20);
    List<String> live = new ArrayList<>();
    Set<String> deleted = new HashSet<>();
    long writtenTotal = 0;
    int next = 0;
    int commits = COMMITS;
    for (int c = 1; c <= commits; c++) {
      written.clear();
      if (c % 10 == 0 && live.size() > 20) {
        // A "compaction" of bucket b: 5 random live files of that bucket replaced by one.
        int bucket = random.nextInt(4);
        List<DataFileMeta> before = new ArrayList<>();
        for (String name : new ArrayList<>(live)) {
          if (before.size() < 5 && bucketOf(name) == bucket && random.nextInt(3) == 0) {
            before.add(file(name));
            live.remove(name);
            deleted.add(name);
          }
        }
        String after = "data-" + (next++) + "-b" + bucket + ".parquet";
        live.add(after);
        commit.commit(
            c,
            List.of(new CommitMessage("", bucket, 4, List.of(), before, List.of(file(after)), 0)));
      } else {
        int bucket = c % 4;
        String name = "data-" + (next++) + "-b" + bucket + ".parquet";
        live.add(name);
        commit.commit(
            c,
            List.of(
                new CommitMessage("", bucket, 4, List.of(file(name)), List.of(), List.of(), 0)));
      }
      writtenTotal += writtenBytes();
      if (c % 500 == 0 || c == commits) {
        PlanRead plan = plan();
        assertThat(plan.dataFiles())
            .as("live files after %d commits", c)
            .isEqualTo(new HashSet<>(live));
        assertThat(plan.dataFiles()).doesNotContainAnyElementsOf(deleted);
        Snapshot latest = table.snapshotManager().latest().orElseThrow();
        long entries = 0;
        for (ManifestFileMeta m : table.store().manifests(latest)) {
          entries += m.numAdded() + m.numDeleted();
        }
        // Entries of deleted files that are still in the manifests are bounded by the threshold
        // (in entries: at least 40 bytes each), not by the history (c commits).
        assertThat(entries - live.size())
            .as("dead entries in the manifests of snapshot %d", latest.id())
            .isLessThanOrEqualTo(
                2 * (FULL_THRESHOLD + (MIN_COUNT + 2 * MAX_PRIOR_DELTAS) * TARGET) / 40);
        // Amortized: what the commits wrote so far is linear in the commits, whatever the history.
        assertThat(writtenTotal / c)
            .as("average manifest bytes written per commit after %d commits", c)
            .isLessThanOrEqualTo(3 * TARGET);
      }
    }
  }

  private static int bucketOf(String name) {
    return name.charAt(name.indexOf("-b") + 2) - '0';
  }
}
