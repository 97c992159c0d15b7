package dev.lockstep.engine.changelog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Change;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.scan.StreamTableScan.SnapshotExpiredException;
import dev.lockstep.engine.snapshot.ConsumerManager;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streaming reads against expiration: a reader that falls behind gets one clear error, a registered
 * consumer holds what it has not read (until {@code consumer.expiration-time}), an append-table
 * stream sees every committed row once in commit order across restarts, and orphan removal and
 * expiration treat changelog files as their retention says.
 */
class StreamingReadTest {

  @TempDir Path dir;

  /** Snapshot expiration as tight as it goes: two snapshots kept. */
  private static final Map<String, String> TIGHT =
      Map.of(
          "snapshot.num-retained.min",
          "1",
          "snapshot.num-retained.max",
          "2",
          // No background compaction: the snapshot ids of the commits are known.
          "num-sorted-run.compaction-trigger",
          "50");

  private static Map<String, String> with(Map<String, String> base, String... keyValues) {
    Map<String, String> all = new HashMap<>(base);
    for (int i = 0; i < keyValues.length; i += 2) {
      all.put(keyValues[i], keyValues[i + 1]);
    }
    return all;
  }

  private static void commitRows(FileStoreTable table, String user, long id, int... keys)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      for (int k : keys) {
        write.write(GenericRow.of(k, "v" + id));
      }
      table.newCommit(user).commit(id, write.prepareCommit());
    }
  }

  private static List<Changes> drain(StreamTableScan stream) throws IOException {
    List<Changes> out = new ArrayList<>();
    for (Optional<Changes> c = stream.next(); c.isPresent(); c = stream.next()) {
      out.add(c.get());
    }
    return out;
  }

  @Test
  void aReaderBehindExpirationGetsOneClearLine() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(dir, with(TIGHT, "changelog-producer", "input"));
    commitRows(table, "w", 1, 1);
    StreamTableScan stream =
        table
            .copyWithOptions(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "1"))
            .newStreamScan();
    assertThat(drain(stream)).extracting(Changes::snapshotId).containsExactly(1L);
    for (long id = 2; id <= 6; id++) {
      commitRows(table, "w", id, (int) id);
    }
    assertThat(table.snapshotManager().earliestId().getAsLong()).isGreaterThan(2);
    assertThatThrownBy(stream::next)
        .isInstanceOf(SnapshotExpiredException.class)
        .hasMessageStartingWith("Snapshot 2 of db.kv, the next one this stream reads, has expired")
        .hasMessageContaining("snapshots " + table.snapshotManager().earliestId().getAsLong())
        .hasMessageContaining("..6 remain")
        .hasMessageContaining("consumer-id")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    // Never skips: asking again fails again.
    assertThatThrownBy(stream::next).isInstanceOf(SnapshotExpiredException.class);
  }

  @Test
  void aRegisteredConsumerHoldsWhatItHasNotRead() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(dir, with(TIGHT, "changelog-producer", "input"));
    commitRows(table, "w", 1, 1);
    FileStoreTable reader =
        table.copyWithOptions(Map.of("consumer-id", "app", "scan.mode", "latest"));
    StreamTableScan stream = reader.newStreamScan();
    assertThat(stream.checkpoint()).isEqualTo(2);
    for (long id = 2; id <= 8; id++) {
      commitRows(table, "w", id, (int) id);
    }
    // Nothing from the consumer's position on expired.
    assertThat(table.snapshotManager().earliestId().getAsLong()).isLessThanOrEqualTo(2);
    List<Change> read = new ArrayList<>();
    drain(stream).forEach(c -> read.addAll(c.rows()));
    List<Change> expected = new ArrayList<>();
    for (int k = 2; k <= 8; k++) {
      expected.add(new Change(RowKind.INSERT, GenericRow.of(k, "v" + k)));
    }
    // Every commit once, in order.
    assertThat(read).isEqualTo(expected);
    assertThat(stream.checkpoint()).isEqualTo(9);
    assertThat(new ConsumerManager(table.fileIO(), table.path()).consumers())
        .containsEntry("app", 9L);
    // Once read, the held snapshots expire with the next commit.
    commitRows(table, "w", 9, 9);
    assertThat(table.snapshotManager().earliestId().getAsLong()).isEqualTo(8);
    // A restarted reader resumes at its recorded position.
    List<Change> resumed = new ArrayList<>();
    drain(reader.newStreamScan()).forEach(c -> resumed.addAll(c.rows()));
    assertThat(resumed).containsExactly(new Change(RowKind.INSERT, GenericRow.of(9, "v9")));
  }

  @Test
  void aConsumerPastItsExpirationTimeNoLongerHoldsSnapshots() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir, with(TIGHT, "changelog-producer", "input", "consumer.expiration-time", "1 s"));
    commitRows(table, "w", 1, 1);
    StreamTableScan stream =
        table.copyWithOptions(Map.of("consumer-id", "dead", "scan.mode", "latest")).newStreamScan();
    stream.checkpoint();
    commitRows(table, "w", 2, 2);
    commitRows(table, "w", 3, 3);
    commitRows(table, "w", 4, 4);
    // The consumer (next snapshot 2) holds 2 and 3, which two retained snapshots would expire.
    assertThat(table.snapshotManager().earliestId().getAsLong()).isEqualTo(2);
    // The consumer stops updating; once its file is older than the expiration time it holds
    // nothing (a bound, not a timing: wait until then).
    Path file = dir.resolve("db.db/kv/consumer/consumer-dead");
    Files.setLastModifiedTime(
        file, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 5_000));
    commitRows(table, "w", 5, 5);
    assertThat(table.snapshotManager().earliestId().getAsLong()).isEqualTo(4);
    assertThat(file).doesNotExist();
    assertThatThrownBy(stream::next).isInstanceOf(SnapshotExpiredException.class);
  }

  @Test
  void anAppendStreamSeesEveryRowOnceInCommitOrderAcrossRestarts() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, TIGHT);
    FileStoreTable reader =
        table.copyWithOptions(Map.of("consumer-id", "copy", "scan.mode", "latest"));
    reader.newStreamScan().checkpoint();
    Random random = new Random(19);
    List<String> committed = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    StreamTableScan stream = reader.newStreamScan();
    long n = 0;
    for (int round = 0; round < 40; round++) {
      String user = "w" + random.nextInt(3);
      try (TableWrite write = table.newWrite(user)) {
        int rows = 1 + random.nextInt(4);
        List<String> batch = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          n++;
          write.write(GenericRow.of(user, n));
          batch.add(user + ":" + n);
        }
        table.newCommit(user).commit(round, write.prepareCommit());
        committed.addAll(batch.stream().sorted().toList());
      }
      if (random.nextInt(3) == 0) {
        List<String> fromStream = new ArrayList<>();
        for (Changes c : drain(stream)) {
          List<String> snapshotRows = new ArrayList<>();
          for (Change change : c.rows()) {
            assertThat(change.kind()).isEqualTo(RowKind.INSERT);
            snapshotRows.add(change.row().get(0) + ":" + change.row().get(1));
          }
          fromStream.addAll(snapshotRows.stream().sorted().toList());
        }
        if (random.nextBoolean()) {
          seen.addAll(fromStream);
          stream.checkpoint();
        }
        // Restart (a crash before the checkpoint forgets what was read since the last one).
        stream = reader.newStreamScan();
      }
    }
    for (Changes c : drain(stream)) {
      List<String> snapshotRows = new ArrayList<>();
      c.rows().forEach(ch -> snapshotRows.add(ch.row().get(0) + ":" + ch.row().get(1)));
      seen.addAll(snapshotRows.stream().sorted().toList());
    }
    assertThat(seen).isEqualTo(committed);
  }

  @Test
  void aProducerSetLaterAndAnEmptyChangelogAreReadRight() throws Exception {
    FileStoreTable none = TestTables.keyValueTable(dir, Map.of());
    commitRows(none, "w", 1, 1, 2);
    FileStoreTable lookup = none.copyWithOptions(Map.of("changelog-producer", "lookup"));
    commitRows(lookup, "w", 2, 1);
    try (TableWrite write = lookup.newWrite("w")) {
      // A delete of an absent key: an empty changelog, not an upsert stream's -D.
      write.write(RowKind.DELETE, GenericRow.of(7, null));
      lookup.newCommit("w").commit(3, write.prepareCommit());
    }
    assertThat(lookup.snapshotManager().get(3).changelogManifestList()).isNotNull();
    List<Change> rows = new ArrayList<>();
    drain(lookup.copyWithOptions(Map.of("scan.snapshot-id", "1")).newStreamScan())
        .forEach(c -> rows.addAll(c.rows()));
    assertThat(rows)
        .containsExactly(
            new Change(RowKind.INSERT, GenericRow.of(1, "v1")),
            new Change(RowKind.INSERT, GenericRow.of(2, "v1")),
            new Change(RowKind.UPDATE_BEFORE, GenericRow.of(1, "v1")),
            new Change(RowKind.UPDATE_AFTER, GenericRow.of(1, "v2")));
  }

  @Test
  void scanModesStartWhereTheySay() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(dir, with(TIGHT, "snapshot.num-retained.max", "100"));
    commitRows(table, "w", 1, 1);
    commitRows(table, "w", 2, 2);
    long afterTwo = table.snapshotManager().get(2).timeMillis();
    while (System.currentTimeMillis() <= afterTwo) {
      Thread.sleep(1); // snapshot 3 must be committed in a later millisecond than 2
    }
    commitRows(table, "w", 3, 3);
    assertThat(
            drain(
                table
                    .copyWithOptions(Map.of("scan.timestamp-millis", String.valueOf(afterTwo)))
                    .newStreamScan()))
        .extracting(Changes::snapshotId)
        .containsExactly(3L);
    StreamTableScan latest = table.copyWithOptions(Map.of("scan.mode", "latest")).newStreamScan();
    assertThat(drain(latest)).isEmpty();
    commitRows(table, "w", 4, 4);
    assertThat(drain(latest)).extracting(Changes::snapshotId).containsExactly(4L);
    List<Changes> full =
        drain(table.copyWithOptions(Map.of("scan.mode", "latest-full")).newStreamScan());
    assertThat(full).hasSize(1);
    assertThat(full.get(0).full()).isTrue();
    assertThat(full.get(0).rows()).hasSize(4);
    List<Changes> fromFull =
        drain(
            table
                .copyWithOptions(Map.of("scan.mode", "from-snapshot-full", "scan.snapshot-id", "2"))
                .newStreamScan());
    assertThat(fromFull).extracting(Changes::snapshotId).containsExactly(2L, 3L, 4L);
    assertThat(fromFull.get(0).rows()).hasSize(2);
    assertThatThrownBy(
            () -> table.copyWithOptions(Map.of("scan.mode", "from-snapshot")).newStreamScan())
        .hasMessage(
            "Option 'scan.mode' is from-snapshot but 'scan.snapshot-id' is not set; set it to the"
                + " first snapshot to read.");
  }

  @Test
  void changelogFilesTravelWithTheMessagesAndAbortDeletesThem() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of("changelog-producer", "input"));
    Path tableDir = dir.resolve("db.db/kv");
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of(1, "a"));
      var messages = write.prepareCommit();
      assertThat(messages.get(0).changelogFiles()).hasSize(1);
      assertThat(changelogFiles(tableDir)).hasSize(1);
      // Given up before committing: abort deletes the data and the changelog files.
      assertThat(table.newCommit("w").abort(1, messages)).isEqualTo(2);
      assertThat(changelogFiles(tableDir)).isEmpty();
      write.write(GenericRow.of(2, "b"));
      messages = write.prepareCommit();
      TableCommit commit = table.newCommit("w");
      commit.commit(2, messages);
      // Committing the same identifier again is a no-op that leaves no second changelog list.
      commit.commit(2, messages);
    }
    assertThat(changelogFiles(tableDir)).hasSize(1);
    assertThat(new OrphanFilesCleaner(table, Duration.ZERO, false).clean().removed()).isEmpty();
    List<Change> rows = new ArrayList<>();
    drain(table.copyWithOptions(Map.of("scan.snapshot-id", "1")).newStreamScan())
        .forEach(c -> rows.addAll(c.rows()));
    assertThat(rows).containsExactly(new Change(RowKind.INSERT, GenericRow.of(2, "b")));
  }

  private static TreeSet<String> changelogFiles(Path tableDir) throws IOException {
    try (Stream<Path> files = Files.walk(tableDir)) {
      return files
          .map(p -> tableDir.relativize(p).toString())
          .filter(p -> p.contains("changelog-"))
          .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
    }
  }

  @Test
  void orphanRemovalKeepsRetainedChangelogsAndExpirationDeletesExpiredOnes() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir,
            Map.of(
                "num-sorted-run.compaction-trigger",
                "50",
                "changelog-producer",
                "input",
                "bucket",
                "2",
                "snapshot.num-retained.min",
                "1",
                "snapshot.num-retained.max",
                "2",
                "changelog.num-retained.max",
                "4"));
    Path tableDir = dir.resolve("db.db/kv");
    for (long id = 1; id <= 4; id++) {
      commitRows(table, "w", id, (int) id, (int) id + 10, (int) id + 20);
    }
    // The changelog retention (4) keeps more than the snapshot one (2): all 4 snapshots remain.
    assertThat(table.snapshotManager().earliestId().getAsLong()).isEqualTo(1);
    TreeSet<String> before = changelogFiles(tableDir);
    assertThat(before).isNotEmpty();
    assertThat(new OrphanFilesCleaner(table, Duration.ZERO, false).clean().removed()).isEmpty();
    assertThat(changelogFiles(tableDir)).isEqualTo(before);
    List<Changes> all =
        drain(table.copyWithOptions(Map.of("scan.snapshot-id", "1")).newStreamScan());
    assertThat(all).extracting(Changes::snapshotId).containsExactly(1L, 2L, 3L, 4L);
    assertThat(changelogFilesOf(table, 1, 4)).hasSize(before.size());
    // Two more commits: snapshots 1 and 2 leave retention, their changelog files go with them.
    commitRows(table, "w", 5, 5);
    commitRows(table, "w", 6, 6);
    assertThat(table.snapshotManager().earliestId().getAsLong()).isEqualTo(3);
    TreeSet<String> after = changelogFiles(tableDir);
    assertThat(after).doesNotContainAnyElementsOf(changelogFilesOf(table, 1, 2));
    assertThat(after).containsAll(changelogFilesOf(table, 3, 6));
    assertThat(new OrphanFilesCleaner(table, Duration.ZERO, false).clean().removed()).isEmpty();
    assertThat(changelogFiles(tableDir)).isEqualTo(after);
    assertThat(drain(table.copyWithOptions(Map.of("scan.snapshot-id", "3")).newStreamScan()))
        .extracting(Changes::snapshotId)
        .containsExactly(3L, 4L, 5L, 6L);
  }

  /** Changelog files the snapshots from..to named, as relative paths (recorded at commit). */
  private final Map<Long, List<String>> changelogBySnapshot = new HashMap<>();

  private List<String> changelogFilesOf(FileStoreTable table, long from, long to)
      throws IOException {
    List<String> out = new ArrayList<>();
    for (long id = from; id <= to; id++) {
      List<String> known = changelogBySnapshot.get(id);
      if (known == null) {
        known = new ArrayList<>();
        var s = table.snapshotManager().get(id);
        for (var e : new dev.lockstep.engine.scan.FileStoreScan(table).changelog(s)) {
          known.add(
              new dev.lockstep.engine.manifest.BucketId(e.partition(), e.bucket()).directory()
                  + "/"
                  + e.file().fileName());
        }
        changelogBySnapshot.put(id, known);
      }
      out.addAll(known);
    }
    return out;
  }
}
