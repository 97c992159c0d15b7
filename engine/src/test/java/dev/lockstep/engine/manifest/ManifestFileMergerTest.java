package dev.lockstep.engine.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.format.AvroFileFormat;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ManifestFileMerger} on real manifests (deflated Avro on the local store): what a merge
 * rewrites, counted in manifests and entries (issue 20: a commit's metadata work must not grow with
 * the table's live files). The end-to-end bounds over thousands of commits are {@code
 * ManifestScalingTest}'s.
 */
class ManifestFileMergerTest {

  private static final long TARGET = 8L * 1024 * 1024;
  private static final int MIN_COUNT = 30;
  private static final long FULL_THRESHOLD = 16L * 1024 * 1024;

  @TempDir java.nio.file.Path dir;

  private ManifestFile manifests() {
    return new ManifestFile(
        new LocalFileIO(), Path.of(dir.toString()), new AvroFileFormat("deflate"));
  }

  private static ManifestEntry add(int n) {
    return new ManifestEntry(FileKind.ADD, "", 0, 1, file(n));
  }

  private static DataFileMeta file(int n) {
    return new DataFileMeta("data-" + n + ".parquet", 1000, 10, null, null, 0, 9, 0, 0, 1L, n);
  }

  /** The live data files the manifests name, applied in order. */
  private static Set<String> live(ManifestFile manifests, List<ManifestFileMeta> metas)
      throws IOException {
    Set<String> live = new LinkedHashSet<>();
    for (ManifestFileMeta m : metas) {
      for (ManifestEntry e : manifests.read(m)) {
        if (e.kind() == FileKind.ADD) {
          live.add(e.file().fileName());
        } else {
          live.remove(e.file().fileName());
        }
      }
    }
    return live;
  }

  private static long entriesWritten(List<ManifestFileMeta> result, List<String> written) {
    Set<String> names = new HashSet<>(written);
    long entries = 0;
    for (ManifestFileMeta m : result) {
      if (names.contains(m.fileName())) {
        entries += m.numAdded() + m.numDeleted();
      }
    }
    return entries;
  }

  /**
   * One manifest of 2,000 live entries (far below the 8 MiB target) and 40 one-entry deltas after
   * it: the deltas are merged, the large manifest is kept as it is. Merging every manifest below
   * the target (the earlier rule, Paimon's) wrote all 2,040 entries again.
   */
  @Test
  void aLargeManifestBelowTheTargetIsNotRewrittenForAFewNewEntries() throws IOException {
    ManifestFile manifests = manifests();
    List<ManifestEntry> base = new ArrayList<>();
    for (int n = 0; n < 2000; n++) {
      base.add(add(n));
    }
    ManifestFileMeta large = manifests.write(base);
    assertThat(large.fileSize()).isLessThan(TARGET);
    List<ManifestFileMeta> input = new ArrayList<>(List.of(large));
    for (int n = 2000; n < 2040; n++) {
      input.add(manifests.write(List.of(add(n))));
    }
    List<String> written = new ArrayList<>();
    List<ManifestFileMeta> result =
        new ManifestFileMerger(manifests, TARGET, MIN_COUNT, FULL_THRESHOLD).merge(input, written);

    assertThat(result.get(0)).isEqualTo(large);
    assertThat(result).hasSize(2);
    assertThat(written).hasSize(1);
    assertThat(entriesWritten(result, written)).isEqualTo(40);
    assertThat(live(manifests, result)).isEqualTo(live(manifests, input)).hasSize(2040);
  }

  /**
   * 3,000 commits of one new file each, a base list (and merge) every 9th as {@code CommitLoop}
   * writes them: every entry is written again at most a logarithmic number of times (each rewrite
   * puts it into a manifest at least 1.5 times as large, from {@code merge-min-count} entries on),
   * the manifests below the target size stay fewer than {@code merge-min-count} + 9 plus one per
   * doubling, and the live files are exact. The earlier rule rewrote all live entries every 36
   * commits: 120,000 entries written for 3,000 commits.
   */
  @Test
  void mergesRewriteEachEntryALogarithmicNumberOfTimes() throws IOException {
    ManifestFile manifests = manifests();
    ManifestFileMerger merger =
        new ManifestFileMerger(manifests, TARGET, MIN_COUNT, FULL_THRESHOLD);
    int commits = 3000;
    List<ManifestFileMeta> base = new ArrayList<>();
    List<ManifestFileMeta> deltas = new ArrayList<>();
    long entriesWritten = 0;
    long largestMerge = 0;
    for (int c = 0; c < commits; c++) {
      deltas.add(manifests.write(List.of(add(c))));
      if (deltas.size() == 9) {
        List<ManifestFileMeta> input = new ArrayList<>(base);
        input.addAll(deltas);
        deltas.clear();
        List<String> written = new ArrayList<>();
        base = merger.merge(input, written);
        long entries = entriesWritten(base, written);
        entriesWritten += entries;
        largestMerge = Math.max(largestMerge, entries);
        int tiers = 1 + (int) Math.ceil(Math.log((c + 1.0) / MIN_COUNT) / Math.log(2));
        assertThat(base.size())
            .as("manifests after %d commits", c + 1)
            .isLessThanOrEqualTo(MIN_COUNT + 9 + tiers);
      }
    }
    double rewritesPerEntry = 1 + Math.log((double) commits / MIN_COUNT) / Math.log(1.5);
    assertThat(entriesWritten)
        .as("entries written by the merges of %d one-file commits", commits)
        .isLessThanOrEqualTo((long) (commits * rewritesPerEntry));
    assertThat(largestMerge).isPositive();
    List<ManifestFileMeta> all = new ArrayList<>(base);
    all.addAll(deltas);
    assertThat(live(manifests, all)).hasSize(commits);
  }

  /**
   * Manifests past the full-compaction threshold with no deleted entry among them: nothing to drop,
   * so nothing is rewritten (a large manifest and a small one after it, a tier apart). The earlier
   * rule rewrote both to drop nothing.
   */
  @Test
  void noFullCompactionWithoutDeletedEntries() throws IOException {
    ManifestFile manifests = manifests();
    List<ManifestEntry> many = new ArrayList<>();
    for (int n = 0; n < 3000; n++) {
      many.add(add(n));
    }
    ManifestFileMeta large = manifests.write(many);
    ManifestFileMeta small = manifests.write(List.of(add(3000)));
    long threshold = large.fileSize(); // the two add up to more than the threshold
    List<String> written = new ArrayList<>();
    List<ManifestFileMeta> input = List.of(large, small);
    List<ManifestFileMeta> result =
        new ManifestFileMerger(manifests, TARGET, MIN_COUNT, threshold).merge(input, written);
    assertThat(written).isEmpty();
    assertThat(result).isEqualTo(input);
  }

  /**
   * With deleted entries past the threshold a full compaction still drops them (the rule is
   * unchanged there): the live entries only, rolled, and no deleted file comes back.
   */
  @Test
  void fullCompactionStillDropsDeletedEntries() throws IOException {
    ManifestFile manifests = manifests();
    List<ManifestEntry> many = new ArrayList<>();
    for (int n = 0; n < 3000; n++) {
      many.add(add(n));
    }
    ManifestFileMeta large = manifests.write(many);
    List<ManifestEntry> deletes = new ArrayList<>();
    for (int n = 0; n < 1000; n++) {
      deletes.add(new ManifestEntry(FileKind.DELETE, "", 0, 1, file(n)));
    }
    ManifestFileMeta deleting = manifests.write(deletes);
    List<String> written = new ArrayList<>();
    List<ManifestFileMeta> input = List.of(large, deleting);
    List<ManifestFileMeta> result =
        new ManifestFileMerger(manifests, TARGET, MIN_COUNT, large.fileSize())
            .merge(input, written);
    assertThat(written).isNotEmpty();
    long deleted = 0;
    long added = 0;
    for (ManifestFileMeta m : result) {
      deleted += m.numDeleted();
      added += m.numAdded();
    }
    assertThat(deleted).isZero();
    assertThat(added).isEqualTo(2000);
    assertThat(live(manifests, result)).isEqualTo(live(manifests, input)).hasSize(2000);
  }
}
