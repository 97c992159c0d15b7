package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.SharedInJvmLockFactory;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths of the commit loop that the other commit tests do not take, each reached at the exact
 * moment through a store hook (real local store, real in-JVM lock; found by mutation testing):
 *
 * <ul>
 *   <li>a twin (same commit user, identifier and kind) that lands while we write our manifests, or
 *       while we yield to another committer's priority claim, or while we wait for the lock: the
 *       catch-up finds it, the commit returns the twin's snapshot and deletes its own unpublished
 *       delta (a second snapshot of the same messages would duplicate their rows);
 *   <li>another commit that lands between the catch-up and the check right before publishing: a
 *       conflict without publishing anything, then a retry on the new snapshot;
 *   <li>the yield to a fresh priority claim: at most three yields, each followed by a catch-up from
 *       the snapshot after the base (an OVERWRITE re-checking the deltas below its base would fail
 *       on appends it already replaces);
 *   <li>the priority claim after a conflict on a lock-free store: "millis losses user", ours.
 * </ul>
 */
class CommitLoopPathsTest {

  @TempDir java.nio.file.Path dir;

  private static final long GUARD_MS = TestTiming.scaled(Duration.ofSeconds(90)).toMillis();

  private FileSystemCatalog catalog(FileIO io, Map<String, String> options) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), options);
  }

  private static Schema schema() {
    return Schema.newBuilder().column("n", DataType.bigint()).build();
  }

  /** The table {@code name} as another table object on a plain local store. */
  private FileStoreTable other(String name) throws IOException {
    return catalog(new LocalFileIO(), Map.of("commit.strategy", "atomic-create"))
        .getTable(new Identifier("db", name));
  }

  /** {@code user} appends one row as identifier {@code identifier}. */
  private static void append(FileStoreTable table, String user, long identifier, long n)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(n));
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  /** The twin: ("ours", 1, APPEND) committed through another table object on {@code base}. */
  private long twin(String name) throws IOException {
    FileStoreTable table = other(name);
    return new CommitLoop(table, "ours")
        .commit(
            CommitKind.APPEND, List.of(), 1, null, table.snapshotManager().latest().orElse(null));
  }

  /** Records the name of every file written through {@code io} (the store's one WRITE hook). */
  private static List<String> recordWrites(FaultInjectingStore io) {
    return recordWrites(io, (op, path) -> {});
  }

  /** As {@link #recordWrites(FaultInjectingStore)}, then runs {@code then}. */
  private static List<String> recordWrites(FaultInjectingStore io, FaultInjectingStore.Hook then) {
    List<String> written = new ArrayList<>();
    io.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          synchronized (written) {
            written.add(path.name());
          }
          then.run(op, path);
        });
    return written;
  }

  private void assertDeleted(String table, List<String> written) {
    List<String> manifests;
    synchronized (written) {
      manifests = written.stream().filter(n -> n.startsWith("manifest-")).toList();
    }
    assertThat(manifests).as("our delta manifest and delta list were written").hasSize(2);
    for (String name : manifests) {
      assertThat(dir.resolve("db.db").resolve(table).resolve("manifest").resolve(name))
          .as("our unpublished %s is deleted", name)
          .doesNotExist();
    }
  }

  @Test
  void aTwinThatLandsWhileWeWriteOurManifestsIsFoundByTheFirstCatchUp() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, Map.of()).createTable(new Identifier("db", "first"), schema());
    append(other("first"), "other", 1, 1);
    AtomicBoolean landed = new AtomicBoolean();
    List<String> written =
        recordWrites(
            io,
            (op, path) -> {
              if (path.name().startsWith("manifest-list-") && landed.compareAndSet(false, true)) {
                assertThat(twin("first")).isEqualTo(2);
              }
            });
    CommitLoop loop = new CommitLoop(table, "ours");

    long id = loop.commit(CommitKind.APPEND, List.of(), 1, null, table.snapshotManager().get(1));

    assertThat(landed).isTrue();
    assertThat(id).as("the twin's snapshot").isEqualTo(2);
    assertThat(table.snapshotManager().log().listIds()).containsExactly(1L, 2L);
    assertThat(loop.retries()).isZero();
    assertDeleted("first", written);
  }

  @Test
  void anotherCommitRightBeforeThePublishIsAConflictWithoutPublishing() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, Map.of()).createTable(new Identifier("db", "late"), schema());
    append(other("late"), "other", 1, 1);
    AtomicBoolean armed = new AtomicBoolean();
    AtomicBoolean raced = new AtomicBoolean();
    List<String> created = new ArrayList<>();
    io.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          if (path.name().startsWith("manifest-list-")) {
            armed.set(true);
          }
        });
    // Base 1 has no parent to prove it current: the check lists the snapshots. Right before that
    // listing, another commit takes snapshot 2.
    io.beforeLanding(
        Operation.LIST,
        (op, path) -> {
          if (armed.get() && raced.compareAndSet(false, true)) {
            append(other("late"), "other", 2, 2);
          }
        });
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          synchronized (created) {
            created.add(path.name());
          }
        });
    CommitLoop loop = new CommitLoop(table, "ours");

    long id = loop.commit(CommitKind.APPEND, List.of(), 1, null, table.snapshotManager().get(1));

    assertThat(raced).isTrue();
    assertThat(id).isEqualTo(3);
    assertThat(loop.retries()).isEqualTo(1);
    assertThat(loop.pauses()).hasSize(1);
    assertThat(created)
        .as("nothing was published for snapshot 2")
        .filteredOn(n -> n.startsWith("snapshot-"))
        .containsExactly("snapshot-3");
    assertThat(table.snapshotManager().get(3).parentCommitId())
        .isEqualTo(table.snapshotManager().get(2).commitId());
  }

  /** Keeps another user's claim with 100 losses fresh at each of the first {@code limit} reads. */
  private static AtomicInteger keepClaimFresh(FaultInjectingStore io, int limit, Runnable atFirst) {
    AtomicInteger reads = new AtomicInteger();
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (path.name().equals(ContentionHint.FILE_NAME)) {
            int n = reads.incrementAndGet();
            if (n <= limit) {
              claim(path);
            }
            if (n == 1) {
              atFirst.run();
            }
          }
        });
    return reads;
  }

  private static void claim(Path file) {
    try (OutputStream out = new LocalFileIO().newOutputStream(file, true)) {
      out.write((System.currentTimeMillis() + " 100 other").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The most reads of the claim file three yields make: one look and a poll every 2 ms each. */
  private static final int THREE_YIELDS_READS =
      3 * (int) (ContentionHint.MAX_YIELD_MILLIS / ContentionHint.POLL_MILLIS + 2);

  @Test
  void anOverwriteThatYieldsCatchesUpFromAfterItsBaseAndYieldsAtMostThreeTimes() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, Map.of()).createTable(new Identifier("db", "yield"), schema());
    // Appends to the partition the overwrite replaces, both below its base.
    append(other("yield"), "other", 1, 1);
    append(other("yield"), "other", 2, 2);
    claim(table.snapshotManager().log().directory().child(ContentionHint.FILE_NAME));
    AtomicInteger reads = keepClaimFresh(io, 20 * THREE_YIELDS_READS, () -> {});
    CommitLoop loop = new CommitLoop(table, "ours");

    long id =
        loop.commit(CommitKind.OVERWRITE, List.of(), 1, p -> true, table.snapshotManager().get(2));

    assertThat(id).isEqualTo(3);
    assertThat(loop.retries()).isZero();
    assertThat(loop.pauses()).isEmpty();
    assertThat(reads).as("reads of the claim").hasValueBetween(3, THREE_YIELDS_READS);
  }

  @Test
  void aTwinThatLandsWhileWeYieldIsFoundByTheYieldsCatchUp() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, Map.of()).createTable(new Identifier("db", "ytwin"), schema());
    append(other("ytwin"), "other", 1, 1);
    claim(table.snapshotManager().log().directory().child(ContentionHint.FILE_NAME));
    AtomicBoolean landed = new AtomicBoolean();
    List<String> written = recordWrites(io);
    keepClaimFresh(
        io,
        Integer.MAX_VALUE,
        () -> {
          try {
            assertThat(twin("ytwin")).isEqualTo(2);
            landed.set(true);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
    CommitLoop loop = new CommitLoop(table, "ours");

    long id = loop.commit(CommitKind.APPEND, List.of(), 1, null, table.snapshotManager().get(1));

    assertThat(landed).isTrue();
    assertThat(id).as("the twin's snapshot").isEqualTo(2);
    assertThat(table.snapshotManager().log().listIds()).containsExactly(1L, 2L);
    assertDeleted("ytwin", written);
  }

  @Test
  void aConflictOnALockFreeStoreClaimsPriorityWithOneLoss() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, Map.of()).createTable(new Identifier("db", "claim"), schema());
    java.nio.file.Path claimFile = dir.resolve("db.db/claim/snapshot/" + ContentionHint.FILE_NAME);
    AtomicBoolean raced = new AtomicBoolean();
    List<String> claims = new ArrayList<>();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && raced.compareAndSet(false, true)) {
            append(other("claim"), "other", 1, 7);
          }
        });
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (raced.get() && path.name().startsWith("snapshot-") && Files.exists(claimFile)) {
            synchronized (claims) {
              claims.add(Files.readString(claimFile));
            }
          }
        });
    CommitLoop loop = new CommitLoop(table, "ours");

    long id = loop.commit(CommitKind.APPEND, List.of(), 1, null, null);

    assertThat(id).isEqualTo(2);
    assertThat(loop.retries()).isEqualTo(1);
    assertThat(claims).isNotEmpty().allMatch(c -> c.matches("\\d+ 1 ours"));
    assertThat(claimFile).as("released once committed").doesNotExist();
  }

  @Test
  void aTwinThatLandsWhileWeWaitForTheLockIsFoundUnderTheLease() throws Exception {
    Map<String, String> locked =
        Map.of("lock.enabled", "true", "lock.type", SharedInJvmLockFactory.IDENTIFIER);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = catalog(io, locked).createTable(new Identifier("db", "ltwin"), schema());
    List<String> written = recordWrites(io);
    var waiting = SharedInJvmLockFactory.waitingAcquire("db.ltwin");
    CommitLoop loop = new CommitLoop(table, "ours");
    Lease held = SharedInJvmLockFactory.SHARED.acquire("db.ltwin", Duration.ZERO).orElseThrow();
    CompletableFuture<Long> commit =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return loop.commit(CommitKind.APPEND, List.of(), 1, null, null);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    try {
      assertThat(waiting.await(GUARD_MS, TimeUnit.MILLISECONDS)).isTrue();
      assertThat(twin("ltwin")).isEqualTo(1);
    } finally {
      held.close();
    }

    assertThat(commit.get(GUARD_MS, TimeUnit.MILLISECONDS)).as("the twin's snapshot").isEqualTo(1);
    assertThat(table.snapshotManager().log().listIds()).containsExactly(1L);
    assertThat(loop.retries()).isZero();
    assertDeleted("ltwin", written);
    table.close();
  }

  /**
   * A commit with no file changes on a primary-key table (its deletion vectors change nothing)
   * keeps its base's index manifest: none here.
   */
  @Test
  void aCommitWithoutChangesOnAPrimaryKeyTableKeepsTheIndexManifest() throws Exception {
    FileStoreTable table =
        catalog(new LocalFileIO(), Map.of())
            .createTable(
                new Identifier("db", "pk"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .option("deletion-vectors.enabled", "true")
                    .build());

    long id = new CommitLoop(table, "ours").commit(CommitKind.APPEND, List.of(), 1, null, null);

    assertThat(id).isEqualTo(1);
    assertThat(table.snapshotManager().get(1).indexManifest()).isNull();
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of(1, "a"));
      table.newCommit("w").commit(1, write.prepareCommit());
    }
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(1);
  }

  /**
   * The delta list's write fails: an interrupt, whether the failure is one or only caused by one (a
   * channel closed by it), fails the commit as interrupted (a CleanableFailure); any other store
   * failure is rethrown as it is. Either way the delta manifest, which nothing names, is deleted.
   */
  @Test
  void aFailedDeltaListWriteIsAnInterruptOnlyWhenAnInterruptCausedIt() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, Map.of()).createTable(new Identifier("db", "unpub"), schema());
    IOException[] failure = new IOException[1];
    List<String> written =
        recordWrites(
            io,
            (op, path) -> {
              if (path.name().startsWith("manifest-list-")) {
                throw failure[0];
              }
            });
    IOException closed =
        new IOException("the store's channel", new java.nio.channels.ClosedByInterruptException());
    IOException stopped = new java.io.InterruptedIOException("stopped");
    IOException plain = new IOException("the store failed");
    for (IOException e : List.of(closed, stopped, plain)) {
      failure[0] = e;
      synchronized (written) {
        written.clear();
      }
      CommitLoop loop = new CommitLoop(table, "ours");

      Throwable thrown =
          org.assertj.core.api.Assertions.catchThrowable(
              () -> loop.commit(CommitKind.APPEND, List.of(), 1, null, null));

      if (e == plain) {
        assertThat(thrown).isSameAs(plain);
      } else {
        assertThat(thrown)
            .isInstanceOf(CommitInterruptedException.class)
            .hasMessageContaining("Interrupted while writing the delta manifest list")
            .hasCause(e);
      }
      List<String> manifests;
      synchronized (written) {
        manifests = written.stream().filter(n -> !n.startsWith("manifest-list-")).toList();
      }
      assertThat(manifests).as("the delta manifest").hasSize(1);
      assertThat(dir.resolve("db.db/unpub/manifest").resolve(manifests.get(0))).doesNotExist();
      assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }
    assertThat(table.snapshotManager().latestId()).isEmpty();
  }

  /** A compaction's snapshot counts the rows it removed: total and delta record counts. */
  @Test
  void aCompactionSnapshotCountsTheRowsItRemoved() throws Exception {
    FileStoreTable table =
        catalog(new LocalFileIO(), Map.of())
            .createTable(
                new Identifier("db", "counts"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .build());
    for (long identifier = 1; identifier <= 2; identifier++) {
      try (TableWrite write = table.newWrite("w")) {
        write.write(GenericRow.of(1, "v" + identifier));
        table.newCommit("w").commit(identifier, write.prepareCommit());
      }
    }
    assertThat(table.snapshotManager().get(2).totalRecordCount()).isEqualTo(2);
    try (TableWrite write = table.newWrite("c")) {
      write.compact(true);
      assertThat(table.newCommit("c").commit(1, write.prepareCommit()).compactSnapshotId())
          .isEqualTo(3);
    }

    var compacted = table.snapshotManager().get(3);
    assertThat(compacted.commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(compacted.deltaRecordCount()).isEqualTo(-1);
    assertThat(compacted.totalRecordCount()).isEqualTo(1);
  }

  /**
   * Dynamic buckets: our writer put the new key 9 into bucket 1; the commit that took snapshot 2
   * first put 9 into bucket 3. The catch-up over snapshot 2 checks our key-hash assignments against
   * it, so the commit moves key 9 into the winner's bucket instead of landing it in two buckets.
   */
  @Test
  void aDynamicBucketCommitCatchingUpOverAWinnerMovesItsKeyToTheWinnersBucket() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours =
        catalog(io, Map.of())
            .createTable(
                new Identifier("db", "kv"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .option("bucket", "-1")
                    .option("dynamic-bucket.target-row-num", "1")
                    .build());
    FileStoreTable others = other("kv");
    try (TableWrite write = others.newWrite("a")) {
      write.write(GenericRow.of(1, "a"));
      others.newCommit("a").commit(1, write.prepareCommit());
    }
    java.util.List<dev.lockstep.engine.write.CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(9, "ours"));
      messages = write.prepareCommit();
    }
    assertThat(messages).singleElement().satisfies(m -> assertThat(m.bucket()).isEqualTo(1));
    AtomicBoolean raced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-2") && raced.compareAndSet(false, true)) {
            try (TableWrite write = others.newWrite("b")) {
              write.write(GenericRow.of(30, "b"));
              write.write(GenericRow.of(31, "b"));
              write.write(GenericRow.of(9, "b"));
              others.newCommit("b").commit(1, write.prepareCommit());
            }
          }
        });

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(raced).isTrue();
    assertThat(result.dataSnapshotId()).isEqualTo(3);
    // Key 9 once, with our (later) value; readKeyValues fails on a key read twice.
    assertThat(dev.lockstep.engine.TestTables.readKeyValues(others))
        .isEqualTo(Map.of(1, "a", 9, "ours", 30, "b", 31, "b"));
  }

  /** A {@code lookup} changelog's snapshot counts its changelog rows. */
  @Test
  void aLookupChangelogSnapshotCountsItsChangelogRows() throws Exception {
    FileStoreTable table =
        catalog(new LocalFileIO(), Map.of())
            .createTable(
                new Identifier("db", "lookup"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .option("changelog-producer", "lookup")
                    .option("bucket", "1")
                    .option("write-only", "true")
                    .build());
    int[][] commits = {{1, 2}, {1, 3}};
    for (int c = 0; c < commits.length; c++) {
      try (TableWrite write = table.newWrite("w")) {
        for (int k : commits[c]) {
          write.write(GenericRow.of(k, "v" + c));
        }
        table.newCommit("w").commit(c + 1, write.prepareCommit());
      }
    }

    // +I 1, +I 2; then -U 1, +U 1, +I 3.
    assertThat(table.snapshotManager().get(1).changelogRecordCount()).isEqualTo(2L);
    assertThat(table.snapshotManager().get(2).changelogRecordCount()).isEqualTo(3L);
  }
}
