package dev.lockstep.engine.changelog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Change;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * For every changelog producer: random interleavings of upserts and deletes from two writers,
 * flushes, compactions and commits; a stream that reads snapshots 1..n in order and applies them to
 * an empty map holds exactly the table at snapshot n, after every commit.
 *
 * <ul>
 *   <li>{@code input}: each snapshot's changelog is exactly the committed batch's input rows, with
 *       their kinds, in input order (one bucket);
 *   <li>{@code lookup}: exact changes: every {@code -U} and {@code -D} carries the key's current
 *       value and is followed by nothing else for that key than its {@code +U}; {@code +I} only for
 *       an absent key; the same with the lookup cache in memory only (the default on the local
 *       store), reading the store each time (a 1 KiB cache), from local copies only (its disk tier
 *       with a 1 KiB memory tier) and with both tiers evicting;
 *   <li>{@code none}: upserts ({@code +I}/{@code +U} set a key, {@code -D} removes it).
 * </ul>
 */
class ChangelogPropertyTest {

  sealed interface Action permits Write, Delete, Flush, Compact, Commit {}

  record Write(int writer, int key) implements Action {}

  record Delete(int writer, int key) implements Action {}

  record Flush(int writer) implements Action {}

  record Compact(int writer, boolean full) implements Action {}

  record Commit(int writer) implements Action {}

  @Property(tries = 20)
  void inputChangelogIsTheInput(@ForAll("actions") List<Action> actions) throws Exception {
    TestTables.inTempDirectory("lockstep-changelog-input", dir -> run(dir, "input", actions));
  }

  @Property(tries = 20)
  void noneStreamsUpserts(@ForAll("actions") List<Action> actions) throws Exception {
    TestTables.inTempDirectory("lockstep-changelog-none", dir -> run(dir, "none", actions));
  }

  @Property(tries = 20)
  void lookupWritesExactChanges(@ForAll("actions") List<Action> actions) throws Exception {
    TestTables.inTempDirectory("lockstep-changelog-lookup", dir -> run(dir, "lookup", actions));
  }

  /** A lookup cache smaller than one file: every lookup reads the store again. */
  @Property(tries = 10)
  void lookupWithATinyCacheWritesExactChanges(@ForAll("actions") List<Action> actions)
      throws Exception {
    TestTables.inTempDirectory(
        "lockstep-changelog-lookup-tiny",
        dir -> run(dir, "lookup", actions, Map.of("lookup.cache-max-memory-size", "1 kb")));
  }

  /**
   * The lookup cache's disk tier alone: a 1 KiB memory tier and local copies of every file (the
   * store is the local file system behind a wrapper, so the disk tier is used).
   */
  @Property(tries = 10)
  void lookupWithTheDiskTierOnlyWritesExactChanges(@ForAll("actions") List<Action> actions)
      throws Exception {
    TestTables.inTempDirectory(
        "lockstep-changelog-lookup-disk",
        dir ->
            run(
                dir,
                "lookup",
                actions,
                Map.of(
                    "lookup.cache-max-memory-size",
                    "1 kb",
                    "lookup.cache-dir",
                    dir.resolve("lookup-cache").toString()),
                true));
  }

  /** Both tiers small enough to evict: 2 KiB of memory, 4 KiB of local copies. */
  @Property(tries = 10)
  void lookupWithBothTiersEvictingWritesExactChanges(@ForAll("actions") List<Action> actions)
      throws Exception {
    TestTables.inTempDirectory(
        "lockstep-changelog-lookup-tiers",
        dir ->
            run(
                dir,
                "lookup",
                actions,
                Map.of(
                    "lookup.cache-max-memory-size", "2 kb",
                    "lookup.cache-max-disk-size", "4 kb",
                    "lookup.cache-dir", dir.resolve("lookup-cache").toString()),
                true));
  }

  private static void run(Path dir, String producer, List<Action> actions) throws IOException {
    run(dir, producer, actions, Map.of());
  }

  private static void run(Path dir, String producer, List<Action> actions, Map<String, String> more)
      throws IOException {
    run(dir, producer, actions, more, false);
  }

  /** {@code wrapped}: the local store behind a wrapper, which the lookup cache treats as remote. */
  private static void run(
      Path dir, String producer, List<Action> actions, Map<String, String> more, boolean wrapped)
      throws IOException {
    Map<String, String> options =
        new java.util.HashMap<>(
            Map.of(
                "num-sorted-run.compaction-trigger",
                "3",
                "write-buffer-size",
                "1 kb",
                "changelog-producer",
                producer));
    options.putAll(more);
    FileStoreTable table =
        wrapped
            ? TestTables.keyValueTable(
                dir.resolve("warehouse"), options, FaultInjectingStore.wrap(new LocalFileIO()))
            : TestTables.keyValueTable(dir, options);
    TableWrite[] writes = {table.newWrite("a"), table.newWrite("b")};
    TableCommit[] commits = {table.newCommit("a"), table.newCommit("b")};
    long[] identifiers = {0, 0};
    List<List<Change>> inputs = List.of(new ArrayList<>(), new ArrayList<>());
    StreamTableScan stream =
        table
            .copyWithOptions(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "1"))
            .newStreamScan();
    Map<Integer, String> applied = new TreeMap<>();
    int step = 0;
    try {
      for (Action action : actions) {
        step++;
        if (action instanceof Write w) {
          String value = "w" + w.writer() + "-s" + step;
          RowKind kind = step % 2 == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER;
          writes[w.writer()].write(kind, GenericRow.of(w.key(), value));
          inputs.get(w.writer()).add(new Change(kind, GenericRow.of(w.key(), value)));
        } else if (action instanceof Delete d) {
          RowKind kind = step % 3 == 0 ? RowKind.UPDATE_BEFORE : RowKind.DELETE;
          writes[d.writer()].write(kind, GenericRow.of(d.key(), null));
          inputs.get(d.writer()).add(new Change(kind, GenericRow.of(d.key(), null)));
        } else if (action instanceof Flush f) {
          writes[f.writer()].flush();
        } else if (action instanceof Compact c) {
          writes[c.writer()].compact(c.full());
        } else if (action instanceof Commit c) {
          int w = c.writer();
          long before = table.snapshotManager().latestId().orElse(0);
          commits[w].commit(++identifiers[w], writes[w].prepareCommit());
          List<Change> input = List.copyOf(inputs.get(w));
          inputs.get(w).clear();
          for (Optional<Changes> next = stream.next(); next.isPresent(); next = stream.next()) {
            Changes changes = next.get();
            assertThat(changes.snapshotId()).isGreaterThan(before);
            if (producer.equals("input")) {
              assertThat(changes.rows())
                  .as("the changelog of snapshot %d is the batch's input", changes.snapshotId())
                  .isEqualTo(input);
            }
            apply(producer, applied, changes);
          }
          assertThat(applied)
              .as("stream applied after step %d of %s", step, actions)
              .isEqualTo(TestTables.readKeyValues(table));
        }
      }
      // A fresh stream from snapshot 1 gives the same table.
      Map<Integer, String> fresh = new TreeMap<>();
      StreamTableScan again =
          table.copyWithOptions(Map.of("scan.snapshot-id", "1")).newStreamScan();
      for (Optional<Changes> next = again.next(); next.isPresent(); next = again.next()) {
        apply(producer, fresh, next.get());
      }
      assertThat(fresh).isEqualTo(TestTables.readKeyValues(table));
    } finally {
      writes[0].close();
      writes[1].close();
      commits[0].close();
      commits[1].close();
      table.close();
    }
  }

  /** Applies one snapshot's changes, checking the producer's promises. */
  static void apply(String producer, Map<Integer, String> map, Changes changes) {
    Integer pendingUpdate = null;
    for (Change change : changes.rows()) {
      Integer key = (Integer) change.row().get(0);
      String value = (String) change.row().get(1);
      String what = change + " of snapshot " + changes.snapshotId() + " on " + map;
      if (producer.equals("lookup")) {
        switch (change.kind()) {
          case INSERT -> assertThat(map).as(what).doesNotContainKey(key);
          case UPDATE_BEFORE -> {
            assertThat(map).as(what).containsEntry(key, value);
            pendingUpdate = key;
          }
          case UPDATE_AFTER -> {
            assertThat(pendingUpdate).as(what + ": +U right after its -U").isEqualTo(key);
            pendingUpdate = null;
          }
          case DELETE -> assertThat(map).as(what).containsEntry(key, value);
        }
        if (change.kind() != RowKind.UPDATE_BEFORE) {
          assertThat(pendingUpdate).as(what + ": a -U without its +U").isNull();
        }
      }
      if (producer.equals("none")) {
        assertThat(change.kind()).as(what).isNotEqualTo(RowKind.UPDATE_BEFORE);
      }
      if (change.kind().isAdd()) {
        map.put(key, value);
      } else {
        map.remove(key);
      }
    }
    assertThat(pendingUpdate).as("a -U at the end of snapshot " + changes.snapshotId()).isNull();
  }

  @Provide
  Arbitrary<List<Action>> actions() {
    Arbitrary<Integer> writer = Arbitraries.integers().between(0, 1);
    Arbitrary<Action> write =
        writer.flatMap(w -> Arbitraries.integers().between(0, 15).map(k -> new Write(w, k)));
    Arbitrary<Action> delete =
        writer.flatMap(w -> Arbitraries.integers().between(0, 15).map(k -> new Delete(w, k)));
    Arbitrary<Action> flush = writer.map(Flush::new);
    Arbitrary<Action> compact =
        writer.flatMap(w -> Arbitraries.of(true, false).map(full -> new Compact(w, full)));
    Arbitrary<Action> commit = writer.map(Commit::new);
    return Arbitraries.frequencyOf(
            Tuple.of(10, write),
            Tuple.of(4, delete),
            Tuple.of(2, flush),
            Tuple.of(2, compact),
            Tuple.of(4, commit))
        .list()
        .ofMinSize(5)
        .ofMaxSize(40)
        .map(
            list -> {
              List<Action> all = new ArrayList<>(list);
              all.add(new Commit(0));
              all.add(new Commit(1));
              return all;
            });
  }
}
