package dev.lockstep.engine.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tags (issue 25): a tag pins a snapshot's files against expiration and orphan removal. */
class TagTest {

  @TempDir Path dir;

  private FileStoreTable table() throws Exception {
    TestTables.keyValueTable(dir, Map.of("snapshot.num-retained.min", "1000"));
    return TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
  }

  /** Batches that rewrite the same 20 keys, each fully compacted: old files leave the table. */
  private static void commitBatches(FileStoreTable table, int n) throws Exception {
    SnapshotExpirationTest.commitBatches(table, n, true);
  }

  /** The rows of a (possibly expired) snapshot, read from its copy. */
  private static Map<Integer, String> read(FileStoreTable table, Snapshot s) throws Exception {
    TreeMap<String, TreeMap<Integer, List<DataFileMeta>>> grouped = new TreeMap<>();
    for (ManifestEntry e : table.store().liveFiles(s).values()) {
      grouped
          .computeIfAbsent(e.partition(), p -> new TreeMap<>())
          .computeIfAbsent(e.bucket(), b -> new ArrayList<>())
          .add(e.file());
    }
    Map<Integer, String> rows = new TreeMap<>();
    for (var partition : grouped.entrySet()) {
      for (var bucket : partition.getValue().entrySet()) {
        for (GenericRow row :
            table
                .newRead()
                .read(new Split(s.id(), partition.getKey(), bucket.getKey(), bucket.getValue()))) {
          rows.put((Integer) row.get(0), (String) row.get(1));
        }
      }
    }
    return rows;
  }

  @Test
  void aTagKeepsItsSnapshotsFilesThroughExpirationAndOrphanRemoval() throws Exception {
    FileStoreTable table = table();
    commitBatches(table, 2);
    long tagged = table.snapshotManager().latestId().getAsLong();
    Map<Integer, String> atTag = Writers.read(table, tagged);
    TagManager tags = new TagManager(table);
    tags.create("release-1", tagged);
    assertThat(Files.exists(dir.resolve("db.db/kv/tag/tag-release-1"))).isTrue();
    commitBatches(table, 3);

    ExpireReport report =
        new SnapshotExpiration(
                table, new MaintenanceOptions(1, Integer.MAX_VALUE, Duration.ZERO, 1000))
            .expire();
    assertThat(report.lastExpired()).isGreaterThanOrEqualTo(tagged);
    assertThat(table.snapshotManager().log().exists(tagged)).isFalse();
    assertThat(report.deletedDataFiles()).as("files of untagged expired snapshots").isNotEmpty();

    Snapshot copy = tags.find("release-1").orElseThrow().snapshot();
    assertThat(copy.id()).isEqualTo(tagged);
    assertThat(read(table, copy)).isEqualTo(atTag);

    OrphanReport orphans = new OrphanFilesCleaner(table, Duration.ZERO, false).clean();
    assertThat(read(table, copy)).isEqualTo(atTag);
    assertThat(Writers.read(table, -1)).hasSize(20);
    assertThat(Files.exists(dir.resolve("db.db/kv/tag/tag-release-1"))).isTrue();

    // Without the tag its files are orphans.
    assertThat(tags.delete("release-1")).isTrue();
    OrphanReport after = new OrphanFilesCleaner(table, Duration.ZERO, false).clean();
    assertThat(after.removed()).isNotEmpty();
    assertThat(orphans.removed()).doesNotContainAnyElementsOf(after.removed());
    assertThat(Writers.read(table, -1)).hasSize(20);
    assertThat(tags.tags()).isEmpty();
  }

  /**
   * The table check reads the files only a tag keeps: a data file of a tagged, expired snapshot
   * that no retained snapshot lists, once deleted, is reported missing and names the tag.
   */
  @Test
  void theCheckFindsAMissingFileThatOnlyATagKeeps() throws Exception {
    FileStoreTable table = table();
    commitBatches(table, 2);
    long tagged = table.snapshotManager().latestId().getAsLong();
    new TagManager(table).create("t", tagged);
    Snapshot copy = table.snapshotManager().get(tagged);
    commitBatches(table, 3);
    new SnapshotExpiration(table, new MaintenanceOptions(1, 1, Duration.ZERO, 1000)).expire();
    assertThat(table.snapshotManager().log().exists(tagged)).isFalse();
    java.util.Set<String> retained = new java.util.HashSet<>();
    for (long id : table.snapshotManager().log().listIds()) {
      for (ManifestEntry e : table.store().liveFiles(table.snapshotManager().get(id)).values()) {
        retained.add(e.file().fileName());
      }
    }
    ManifestEntry onlyTagged =
        table.store().liveFiles(copy).values().stream()
            .filter(e -> !retained.contains(e.file().fileName()))
            .findFirst()
            .orElseThrow();
    Files.delete(
        Path.of(
            table
                .bucketPath(onlyTagged.partition(), onlyTagged.bucket())
                .child(onlyTagged.file().fileName())
                .pathPart()));

    TableCheck.Report report = new TableCheck(table, false).run();

    TableCheck.Problem p =
        TableCheckTest.onlyProblem(report, "data file", onlyTagged.file().fileName());
    assertThat(p.damage()).isEqualTo("missing");
    assertThat(p.snapshots()).containsExactly("tag t");
  }

  @Test
  void aTagOnTheExpiredRangeIsHonouredByADryRunToo() throws Exception {
    FileStoreTable table = table();
    commitBatches(table, 3);
    MaintenanceOptions all = new MaintenanceOptions(1, Integer.MAX_VALUE, Duration.ZERO, 1000);
    List<String> untagged = new SnapshotExpiration(table, all).dryRun().deletedDataFiles();
    new TagManager(table).create("t1", 1);
    List<String> tagged = new SnapshotExpiration(table, all).dryRun().deletedDataFiles();
    assertThat(tagged).hasSizeLessThan(untagged.size());
    for (ManifestEntry e : table.store().liveFiles(table.snapshotManager().get(1)).values()) {
      assertThat(tagged).noneMatch(f -> f.endsWith("/" + e.file().fileName()));
    }
  }

  @Test
  void badNamesTakenNamesAndMissingSnapshotsAreRefused() throws Exception {
    FileStoreTable table = table();
    commitBatches(table, 2);
    TagManager tags = new TagManager(table);
    tags.create("a", 1);
    assertThatThrownBy(() -> tags.create("a", 2))
        .hasMessageContaining("tag 'a'")
        .hasMessageContaining("exists already (snapshot 1)");
    assertThatThrownBy(() -> tags.create("b", 9))
        .hasMessageContaining("snapshot 9")
        .hasMessageContaining("does not exist");
    assertThatThrownBy(() -> tags.create("../x", 1)).hasMessageContaining("not valid");
    assertThat(tags.tags()).extracting(TagManager.Tag::name).containsExactly("a");
    assertThat(tags.delete("b")).isFalse();
  }

  /**
   * {@code create} returns the tag it wrote; {@code tags()} lists by snapshot id, then name,
   * whatever order the store lists the files in (eight tags: a listing that happens to be in that
   * order is one in 40,320); {@code find} and {@code delete} refuse a bad name as {@code create}
   * does, before touching any file.
   */
  @Test
  void createReturnsTheTagTagsAreOrderedAndFindAndDeleteRefuseBadNames() throws Exception {
    FileStoreTable table = table();
    commitBatches(table, 3);
    TagManager tags = new TagManager(table);
    TagManager.Tag made = tags.create("h", 1);
    assertThat(made.name()).isEqualTo("h");
    assertThat(made.snapshot().id()).isEqualTo(1);
    assertThat(made.snapshot().commitId()).isEqualTo(table.snapshotManager().get(1).commitId());
    String[][] more = {
      {"g", "1"}, {"f", "2"}, {"e", "2"}, {"d", "3"}, {"c", "3"}, {"b", "1"}, {"a", "2"}
    };
    for (String[] t : more) {
      tags.create(t[0], Long.parseLong(t[1]));
    }
    assertThat(tags.tags())
        .extracting(t -> t.name() + "@" + t.snapshot().id())
        .containsExactly("b@1", "g@1", "h@1", "a@2", "e@2", "f@2", "c@3", "d@3");
    assertThatThrownBy(() -> tags.find("../x")).hasMessageContaining("not valid");
    assertThatThrownBy(() -> tags.delete("../h")).hasMessageContaining("not valid");
    assertThat(tags.find("h")).isPresent();
  }

  /**
   * An empty tag file (a crash while tagging) is named as empty, with the command that fixes it.
   */
  @Test
  void anEmptyTagFileIsNamedAsEmptyWithTheFix() throws Exception {
    FileStoreTable table = table();
    commitBatches(table, 2);
    new TagManager(table).create("t", 1);
    Files.write(dir.resolve("db.db/kv/tag/tag-t"), new byte[0]);
    assertThatThrownBy(() -> new TagManager(table).find("t"))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("tag-t")
        .hasMessageContaining("is not a snapshot (empty)")
        .hasMessageContaining("'lockstep table delete-tag'");
  }
}
