package dev.lockstep.engine.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TableCheck} (issue 25) finds exactly the damage made, for each kind of file (snapshot,
 * manifest list, manifest, data file, schema) and each kind of damage (empty, truncated, garbage,
 * missing), and reports nothing on an intact table.
 */
class TableCheckTest {

  @TempDir Path dir;

  private enum Damage {
    EMPTY,
    TRUNCATED,
    GARBAGE,
    MISSING
  }

  private enum Kind {
    SNAPSHOT,
    MANIFEST_LIST,
    MANIFEST,
    DATA_FILE,
    SCHEMA
  }

  /** A table of three snapshots in its own directory. */
  private FileStoreTable table(String name) throws Exception {
    Path root = dir.resolve(name);
    TestTables.keyValueTable(root, Map.of("bucket", "2"));
    FileStoreTable table = TestTables.catalog(root).getTable(Identifier.parse("db.kv"));
    var commit = table.newCommit("w");
    try (TableWrite write = table.newWrite("w")) {
      for (int b = 1; b <= 3; b++) {
        for (int k = 0; k < 10; k++) {
          write.write(GenericRow.of(k + b * 5, "v" + b));
        }
        commit.commit(b, write.prepareCommit());
      }
    }
    return table;
  }

  private static Path local(dev.lockstep.fs.Path path) {
    return Path.of(path.pathPart());
  }

  /** The file of {@code kind} to damage: snapshot 2's or a file it references. */
  private static Path victim(FileStoreTable table, Kind kind) throws Exception {
    Snapshot s = table.snapshotManager().get(2);
    return switch (kind) {
      case SNAPSHOT -> local(table.snapshotManager().log().snapshotPath(2));
      case MANIFEST_LIST -> local(table.path().child("manifest").child(s.deltaManifestList()));
      case MANIFEST ->
          local(
              table
                  .manifestFile()
                  .path(table.manifestList().read(s.deltaManifestList()).get(0).fileName()));
      case DATA_FILE -> {
        ManifestEntry e = table.store().delta(s).get(0);
        yield local(table.bucketPath(e.partition(), e.bucket()).child(e.file().fileName()));
      }
      case SCHEMA -> local(table.path().child("schema").child("schema-0"));
    };
  }

  private static void damage(Path file, Damage damage) throws Exception {
    byte[] bytes = Files.readAllBytes(file);
    switch (damage) {
      case EMPTY -> Files.write(file, new byte[0]);
      case TRUNCATED -> Files.write(file, Arrays.copyOf(bytes, bytes.length / 2));
      case GARBAGE -> {
        byte[] junk = new byte[bytes.length];
        Arrays.fill(junk, (byte) 'x');
        Files.write(file, junk);
      }
      case MISSING -> Files.delete(file);
    }
  }

  @Test
  void anIntactTableHasNoProblems() throws Exception {
    FileStoreTable table = table("intact");
    new TagManager(table).create("t", 1);
    TableCheck.Report report = new TableCheck(table, true).run();
    assertThat(report.problems()).isEmpty();
    assertThat(report.ok()).isTrue();
    assertThat(report.snapshots()).isEqualTo(3);
    assertThat(report.tags()).isEqualTo(1);
    assertThat(report.schemas()).isEqualTo(1);
    assertThat(report.dataFiles()).isPositive();
    assertThat(report.rowsRead()).isPositive();
  }

  /**
   * From the EARLIEST hint on, every id must be there: the snapshot the hint names is missing is
   * damage, also when an older file (an expired id published again) sits below it.
   */
  @Test
  void theSnapshotTheEarliestHintNamesIsMissingIsDamage() throws Exception {
    FileStoreTable table = table("hinted");
    Path snapshots = local(table.snapshotManager().log().directory());
    Files.write(
        snapshots.resolve("EARLIEST"), "2".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    Files.delete(snapshots.resolve("snapshot-2"));
    TableCheck.Report report = new TableCheck(table, false).run();
    assertThat(onlyProblem(report, "snapshot", "snapshot-2").damage()).isEqualTo("missing");
    assertThat(report.ok()).isFalse();
  }

  /** A problem's line names who references the file, the first five and how many more. */
  @Test
  void aProblemsLineNamesUpToFiveReferencesAndCountsTheRest() {
    List<String> four = List.of("snapshot 1", "snapshot 2", "snapshot 3", "snapshot 4");
    assertThat(new TableCheck.Problem("data file", "/t/f", "missing", List.of()).describe())
        .isEqualTo("data file /t/f is missing");
    assertThat(new TableCheck.Problem("manifest", "/t/m", "empty", four).describe())
        .isEqualTo(
            "manifest /t/m is empty; referenced by snapshot 1, snapshot 2, snapshot 3, snapshot 4");
    List<String> five = new java.util.ArrayList<>(four);
    five.add("tag t");
    assertThat(new TableCheck.Problem("manifest", "/t/m", "empty", five).describe())
        .endsWith("; referenced by snapshot 1, snapshot 2, snapshot 3, snapshot 4, tag t");
    List<String> more = new java.util.ArrayList<>(five);
    more.add("snapshot 6");
    more.add("snapshot 7");
    assertThat(new TableCheck.Problem("manifest", "/t/m", "empty", more).describe())
        .endsWith(
            "; referenced by snapshot 1, snapshot 2, snapshot 3, snapshot 4, tag t and 2 more");
  }

  /**
   * An index file (a dynamic-bucket table's key hashes) whose length is not the one its index
   * manifest records is damage, empty or short, named with both lengths.
   */
  @Test
  void anIndexFileOfTheWrongLengthIsDamage() throws Exception {
    for (Damage damage : List.of(Damage.EMPTY, Damage.TRUNCATED)) {
      Path root = dir.resolve("index-" + damage);
      TestTables.keyValueTable(root, Map.of("bucket", "-1"));
      FileStoreTable table = TestTables.catalog(root).getTable(Identifier.parse("db.kv"));
      try (TableWrite write = table.newWrite("w")) {
        for (int k = 0; k < 50; k++) {
          write.write(GenericRow.of(k, "v"));
        }
        table.newCommit("w").commit(1, write.prepareCommit());
      }
      Snapshot s = table.snapshotManager().get(1);
      IndexFileMeta index = table.indexManifest().read(s.indexManifest()).get(0);
      Path file = local(table.indexManifest().path(index.fileName()));
      damage(file, damage);

      TableCheck.Problem p =
          onlyProblem(new TableCheck(table, false).run(), "index file", index.fileName());

      String recorded = " (its index manifest says " + index.fileSize() + " bytes)";
      assertThat(p.damage())
          .isEqualTo(
              damage == Damage.EMPTY
                  ? "empty" + recorded
                  : (index.fileSize() / 2) + " bytes long" + recorded);
      assertThat(p.snapshots()).containsExactly("snapshot 1");
    }
  }

  /** The one problem of {@code report}, of {@code kind}, in a file whose name ends so. */
  static TableCheck.Problem onlyProblem(TableCheck.Report report, String kind, String fileSuffix) {
    assertThat(report.problems()).hasSize(1);
    TableCheck.Problem p = report.problems().get(0);
    assertThat(p.kind()).as(p.toString()).isEqualTo(kind);
    assertThat(p.file()).as(p.toString()).endsWith(fileSuffix);
    return p;
  }

  @Test
  void aGapBelowTheEarliestSnapshotIsExpirationNotDamage() throws Exception {
    FileStoreTable table = table("expired");
    new SnapshotExpiration(
            table, new MaintenanceOptions(1, Integer.MAX_VALUE, java.time.Duration.ZERO, 100))
        .expire();
    // An expired id published again below the history (a late write): a file, then a gap.
    Path snapshots = local(table.snapshotManager().log().directory());
    Files.copy(snapshots.resolve("snapshot-3"), snapshots.resolve("snapshot-1"));
    TableCheck.Report report = new TableCheck(table, false).run();
    assertThat(report.problems()).isEmpty();
    assertThat(report.snapshots()).isEqualTo(2);
  }

  @Test
  void findsExactlyTheDamageMade() throws Exception {
    for (Kind kind : Kind.values()) {
      for (Damage damage : Damage.values()) {
        FileStoreTable table = table(kind + "-" + damage);
        Path file = victim(table, kind);
        damage(file, damage);
        // Garbage of the right size in a data file is found by reading it (--deep) only.
        boolean deep = kind == Kind.DATA_FILE && damage == Damage.GARBAGE;
        List<TableCheck.Problem> problems = new TableCheck(table, deep).run().problems();
        String label = kind + " " + damage + ": " + problems;
        assertThat(problems).as(label).hasSize(1);
        TableCheck.Problem p = problems.get(0);
        assertThat(p.file()).as(label).isEqualTo(file.toString());
        assertThat(p.kind()).as(label).isEqualTo(kind.name().toLowerCase().replace('_', ' '));
        switch (damage) {
          case EMPTY -> assertThat(p.damage()).as(label).startsWith("empty");
          case TRUNCATED ->
              assertThat(p.damage())
                  .as(label)
                  .satisfiesAnyOf(
                      d -> assertThat(d).startsWith("truncated at byte " + Files.size(file)),
                      d -> assertThat(d).startsWith("unparsable"));
          case GARBAGE ->
              // The parser's own words after its exception's name: what a person can act on.
              assertThat(p.damage()).as(label).matches("unparsable \\(\\w+: .+\\)");
          case MISSING -> assertThat(p.damage()).as(label).isEqualTo("missing");
        }
        if (kind != Kind.SNAPSHOT) {
          assertThat(p.snapshots()).as(label).contains("snapshot 2");
        }
        assertThat(p.describe()).as(label).contains(file.toString());
      }
    }
  }
}
