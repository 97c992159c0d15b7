package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.KeyCodec;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConflictDetectorTest {

  private final KeyCodec keys =
      new KeyCodec(new RowType(List.of(new DataField(0, "k", DataType.intType().notNull()))));

  private ManifestEntry file(FileKind kind, String name, int level, int min, int max, int buckets) {
    return new ManifestEntry(
        kind,
        "p=1",
        0,
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

  private static Snapshot snapshot(CommitKind kind) {
    return new Snapshot(1, 5, 0, "b", List.of(), "d", "other", 1, kind, 0, 0, 0, "id", null, null);
  }

  @Test
  void aDeletedFileMustStillBeLive() {
    ConflictDetector detector =
        new ConflictDetector(keys, 1, List.of(file(FileKind.DELETE, "a", 0, 1, 5, 1)), null);
    assertThatCode(() -> detector.checkAgainstLive(List.of(file(FileKind.ADD, "a", 0, 1, 5, 1))))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> detector.checkAgainstLive(List.of()))
        .isInstanceOf(FileConflictException.class)
        .hasMessageContaining("no longer live");
    assertThatThrownBy(
            () ->
                detector.checkDelta(
                    snapshot(CommitKind.COMPACT), List.of(file(FileKind.DELETE, "a", 0, 1, 5, 1))))
        .isInstanceOf(FileConflictException.class)
        .hasMessageContaining("deleted a first");
  }

  @Test
  void leveledFilesMustNotOverlapTheirLevelButMayReplaceWhatTheyDelete() {
    ConflictDetector detector =
        new ConflictDetector(
            keys,
            1,
            List.of(
                file(FileKind.DELETE, "old", 2, 0, 9, 1), file(FileKind.ADD, "new", 2, 0, 9, 1)),
            null);
    assertThatCode(
            () ->
                detector.checkAgainstLive(
                    List.of(
                        file(FileKind.ADD, "old", 2, 0, 9, 1),
                        file(FileKind.ADD, "other-level", 1, 0, 9, 1),
                        file(FileKind.ADD, "apart", 2, 10, 20, 1))))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                detector.checkAgainstLive(
                    List.of(
                        file(FileKind.ADD, "old", 2, 0, 9, 1),
                        file(FileKind.ADD, "overlap", 2, 9, 12, 1))))
        .isInstanceOf(FileConflictException.class)
        .hasMessageContaining("overlaps live file");
    assertThatThrownBy(
            () ->
                detector.checkDelta(
                    snapshot(CommitKind.COMPACT),
                    List.of(file(FileKind.ADD, "theirs", 2, 5, 6, 1))))
        .isInstanceOf(FileConflictException.class);
  }

  /**
   * Key ranges are closed: a live file of the level that ends at our first key, or starts at our
   * last key, overlaps ours. The conflict names our file's partition and bucket (a dropped
   * compaction is looked up by them).
   */
  @Test
  void leveledFilesThatTouchAtOneKeyOverlap() {
    ConflictDetector detector =
        new ConflictDetector(keys, 1, List.of(file(FileKind.ADD, "new", 2, 0, 9, 1)), null);
    for (ManifestEntry touching :
        List.of(
            file(FileKind.ADD, "below", 2, -5, 0, 1), file(FileKind.ADD, "above", 2, 9, 20, 1))) {
      assertThatThrownBy(() -> detector.checkAgainstLive(List.of(touching)))
          .isInstanceOfSatisfying(
              FileConflictException.class,
              e -> {
                org.assertj.core.api.Assertions.assertThat(e.partition()).isEqualTo("p=1");
                org.assertj.core.api.Assertions.assertThat(e.bucket()).isZero();
              })
          .hasMessageContaining("overlaps live file " + touching.file().fileName());
    }
    assertThatCode(
            () ->
                detector.checkAgainstLive(
                    List.of(
                        file(FileKind.ADD, "under", 2, -5, -1, 1),
                        file(FileKind.ADD, "over", 2, 10, 20, 1))))
        .doesNotThrowAnyException();
  }

  @Test
  void aChangedBucketCountConflicts() {
    ConflictDetector detector =
        new ConflictDetector(keys, 1, List.of(file(FileKind.ADD, "mine", 0, 1, 1, 1)), null);
    assertThatThrownBy(
            () ->
                detector.checkDelta(
                    snapshot(CommitKind.APPEND),
                    List.of(file(FileKind.ADD, "rescaled", 0, 1, 1, 4))))
        .isInstanceOf(FileConflictException.class)
        .hasMessageContaining("4 buckets");
  }

  @Test
  void anOverwriteConflictsWithAppendsToItsPartitionsButNotWithCompactions() {
    ConflictDetector detector = new ConflictDetector(keys, 1, List.of(), "p=1"::equals);
    assertThatCode(
            () ->
                detector.checkDelta(
                    snapshot(CommitKind.COMPACT),
                    List.of(file(FileKind.ADD, "compacted", 3, 1, 2, 1))))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                detector.checkDelta(
                    snapshot(CommitKind.APPEND),
                    List.of(file(FileKind.ADD, "appended", 0, 1, 2, 1))))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("Overwrite conflict");
  }
}
