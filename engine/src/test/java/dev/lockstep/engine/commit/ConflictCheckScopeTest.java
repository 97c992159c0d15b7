package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.KeyCodec;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.scan.LiveFileCache;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The check of a commit against its base's live files looks at what the commit touches, not at
 * every live file of its partitions (issue 20: at 10,000 live files in one partition every commit
 * visited all of them). Counted: the live entries the check is handed, through a counting view of a
 * real {@link LiveFileCache.Index}.
 */
class ConflictCheckScopeTest {

  private final KeyCodec keys =
      new KeyCodec(new RowType(List.of(new DataField(0, "k", DataType.intType().notNull()))));

  private ManifestEntry file(String name, int bucket, int level, int min, int max, int buckets) {
    return new ManifestEntry(
        FileKind.ADD,
        "",
        bucket,
        buckets,
        new DataFileMeta(
            name,
            10,
            1,
            keys.encode(GenericRow.of(min)),
            keys.encode(GenericRow.of(max)),
            0,
            0,
            0,
            level,
            0,
            1));
  }

  /** Counts the live entries handed out by a real index. */
  private static final class Counting implements LiveFileCache.Index {
    private final LiveFileCache.Index index;
    long entries;

    Counting(LiveFileCache.Index index) {
      this.index = index;
    }

    @Override
    public boolean contains(ManifestEntry.FileId id) {
      entries++;
      return index.contains(id);
    }

    @Override
    public Set<Integer> totalBuckets(String partition) {
      return index.totalBuckets(partition);
    }

    @Override
    public Collection<ManifestEntry> files(String partition, int bucket) {
      Collection<ManifestEntry> files = index.files(partition, bucket);
      entries += files.size();
      return files;
    }

    @Override
    public List<ManifestEntry> files(String partition) {
      List<ManifestEntry> files = index.files(partition);
      entries += files.size();
      return files;
    }
  }

  /** 10,000 live files in 4 buckets of one partition, levels 0 and 1 (disjoint key ranges). */
  private List<ManifestEntry> live() {
    List<ManifestEntry> live = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      live.add(file("live-" + i, i % 4, i % 2, 10 * i, 10 * i + 5, 4));
    }
    return live;
  }

  @Test
  void anAppendLooksAtNoLiveFile() throws Exception {
    Counting live = new Counting(LiveFileCache.index(live()));
    ConflictDetector detector =
        new ConflictDetector(keys, 4, List.of(file("new", 1, 0, 3, 4, 4)), null);
    detector.checkAgainstLive(live);
    assertThat(live.entries).isZero();
  }

  @Test
  void aCompactionLooksAtItsDeletedFilesAndItsBucketOnly() throws Exception {
    List<ManifestEntry> all = live();
    Counting live = new Counting(LiveFileCache.index(all));
    List<ManifestEntry> changes = new ArrayList<>();
    changes.add(new ManifestEntry(FileKind.DELETE, "", 2, 4, all.get(2).file()));
    changes.add(new ManifestEntry(FileKind.DELETE, "", 2, 4, all.get(6).file()));
    changes.add(file("compacted", 2, 1, 20, 65, 4));
    ConflictDetector detector = new ConflictDetector(keys, 4, changes, null);
    detector.checkAgainstLive(live);
    // The 2,500 files of bucket 2 (the overlap check of the new level-1 file) and the 2 deleted.
    assertThat(live.entries).isEqualTo(2_500 + 2);
  }

  @Test
  void theChecksStillRefuse() {
    List<ManifestEntry> all = live();
    // Keys 31..32 lie in live-3 (bucket 3, level 1: 30..35).
    ConflictDetector overlapping =
        new ConflictDetector(keys, 4, List.of(file("x", 3, 1, 31, 32, 4)), null);
    assertThatThrownBy(() -> overlapping.checkAgainstLive(LiveFileCache.index(all)))
        .isInstanceOf(FileConflictException.class)
        .hasMessageContaining("overlaps live file live-3");
    ConflictDetector otherBuckets =
        new ConflictDetector(keys, 8, List.of(file("y", 1, 0, 1, 2, 8)), null);
    assertThatThrownBy(() -> otherBuckets.checkAgainstLive(LiveFileCache.index(all)))
        .isInstanceOf(FileConflictException.class)
        .hasMessageContaining("has files written with 4 buckets");
    ConflictDetector gone =
        new ConflictDetector(
            keys,
            4,
            List.of(new ManifestEntry(FileKind.DELETE, "", 0, 4, file("z", 0, 0, 1, 2, 4).file())),
            null);
    assertThatThrownBy(() -> gone.checkAgainstLive(LiveFileCache.index(all)))
        .isInstanceOf(FileConflictException.class)
        .hasMessageContaining("is no longer live");
  }
}
