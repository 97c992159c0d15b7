package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitInterruptedException;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A commit interrupted while it writes one of its manifest lists (SIGTERM on the CLI interrupts the
 * committing thread, and the local file system's channel then closes by interrupt) published
 * nothing: it fails with {@link CommitInterruptedException} and deletes every manifest and list it
 * wrote, so that no file is left behind (issue 25). The first commit of a table writes two lists:
 * its delta list (the first write), then its base list (the second).
 */
class InterruptedMetadataWriteTest {

  @TempDir java.nio.file.Path dir;

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void anInterruptedListWriteLeavesNoManifestBehind(int failedListWrite) throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileSystemCatalog catalog = createTable(store);
    java.nio.file.Path manifests = dir.resolve("db.db/t/manifest");
    AtomicInteger lists = new AtomicInteger();
    store.beforeLanding(
        Operation.WRITE,
        (operation, path) -> {
          if (path.name().startsWith("manifest-list-")
              && lists.incrementAndGet() == failedListWrite) {
            Thread.currentThread().interrupt();
            throw new ClosedByInterruptException();
          }
        });
    try (FileStoreTable table = catalog.getTable(Identifier.parse("db.t"));
        TableWrite write = table.newWrite("u")) {
      for (int k = 0; k < 100; k++) {
        write.write(GenericRow.of(k, "v" + k));
      }
      List<CommitMessage> messages = write.prepareCommit();
      TableCommit commit = table.newCommit("u");
      Set<String> before = names(manifests);
      try {
        assertThatThrownBy(() -> commit.commit(1, messages))
            .isInstanceOf(CommitInterruptedException.class)
            .hasMessageContaining("nothing was committed");
      } finally {
        assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
      }
      assertThat(lists.get()).isEqualTo(failedListWrite);
      assertThat(names(manifests)).as("manifests and lists after the interrupt").isEqualTo(before);
      assertThat(table.snapshotManager().latestId()).isEmpty();

      // The same messages commit afterwards.
      assertThat(commit.commit(1, messages).dataSnapshotId()).isEqualTo(1);
    }
  }

  /**
   * Interrupted after its delta manifest and list are written, while it catches up with the
   * snapshots before publishing (the snapshot directory's first read then): nothing of it can have
   * landed, so it frees the delta and its list too (a compaction interrupted there left both behind
   * in InterruptTest).
   */
  @org.junit.jupiter.api.Test
  void anInterruptWhileCatchingUpBeforePublishingLeavesNoManifestBehind() throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileSystemCatalog catalog = createTable(store);
    java.nio.file.Path manifests = dir.resolve("db.db/t/manifest");
    AtomicInteger lists = new AtomicInteger();
    AtomicInteger fired = new AtomicInteger();
    store.beforeLanding(
        Operation.WRITE,
        (operation, path) -> {
          if (path.name().startsWith("manifest-list-")) {
            lists.incrementAndGet();
          }
        });
    FaultInjectingStore.Hook interrupt =
        (operation, path) -> {
          if (lists.get() >= 1
              && path.toString().contains("/snapshot")
              && fired.getAndIncrement() == 0) {
            Thread.currentThread().interrupt();
            throw new ClosedByInterruptException();
          }
        };
    store.beforeLanding(Operation.READ, interrupt);
    store.beforeLanding(Operation.EXISTS, interrupt);
    try (FileStoreTable table = catalog.getTable(Identifier.parse("db.t"));
        TableWrite write = table.newWrite("u")) {
      for (int k = 0; k < 100; k++) {
        write.write(GenericRow.of(k, "v" + k));
      }
      List<CommitMessage> messages = write.prepareCommit();
      TableCommit commit = table.newCommit("u");
      Set<String> before = names(manifests);
      try {
        assertThatThrownBy(() -> commit.commit(1, messages))
            .isInstanceOf(CommitInterruptedException.class);
      } finally {
        Thread.interrupted();
      }
      assertThat(fired.get()).as("interrupted after the delta list").isPositive();
      assertThat(names(manifests)).as("manifests and lists after the interrupt").isEqualTo(before);
      assertThat(table.snapshotManager().latestId()).isEmpty();
      store.clearFaults();
      assertThat(commit.commit(1, messages).dataSnapshotId()).isEqualTo(1);
    }
  }

  /**
   * The {@code n}th read, existence check or listing of the snapshot directory after the delta list
   * of the second commit is written is interrupted, for every {@code n} the commit gets to: before
   * its publish the commit fails as interrupted and leaves every manifest as it found it; after,
   * its snapshot landed (the commit may still report the interrupt) and names its manifests.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  void anInterruptAtAnyReadOfSnapshotsLeavesNoManifestBehindUnlessItLanded(int n) throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileSystemCatalog catalog = createTable(store);
    java.nio.file.Path manifests = dir.resolve("db.db/t/manifest");
    AtomicInteger lists = new AtomicInteger();
    AtomicInteger reads = new AtomicInteger();
    AtomicInteger fired = new AtomicInteger();
    store.beforeLanding(
        Operation.WRITE,
        (operation, path) -> {
          if (path.name().startsWith("manifest-list-")) {
            lists.incrementAndGet();
          }
        });
    try (FileStoreTable table = catalog.getTable(Identifier.parse("db.t"));
        TableWrite write = table.newWrite("u")) {
      TableCommit commit = table.newCommit("u");
      write.write(GenericRow.of(-1, "first"));
      commit.commit(1, write.prepareCommit());
      int listsAfterFirst = lists.get();
      FaultInjectingStore.Hook interrupt =
          (operation, path) -> {
            if (lists.get() > listsAfterFirst
                && path.toString().contains("/snapshot")
                && reads.incrementAndGet() == n) {
              fired.incrementAndGet();
              Thread.currentThread().interrupt();
              throw new ClosedByInterruptException();
            }
          };
      store.beforeLanding(Operation.READ, interrupt);
      store.beforeLanding(Operation.EXISTS, interrupt);
      store.beforeLanding(Operation.LIST, interrupt);
      for (int k = 0; k < 100; k++) {
        write.write(GenericRow.of(k, "v" + k));
      }
      List<CommitMessage> messages = write.prepareCommit();
      Set<String> before = names(manifests);
      boolean failed = false;
      try {
        commit.commit(2, messages);
      } catch (IOException e) {
        failed = true;
      } finally {
        Thread.interrupted();
      }
      store.clearFaults();
      boolean landed = table.snapshotManager().find(2).isPresent();
      if (fired.get() == 0) {
        assertThat(failed).as("no interrupt, no failure").isFalse();
        assertThat(landed).isTrue();
        return;
      }
      if (!landed) {
        assertThat(failed).as("the interrupt at snapshot access %s", n).isTrue();
        assertThat(names(manifests))
            .as("manifests and lists after the interrupt at snapshot access %s", n)
            .isEqualTo(before);
      }
      // Either way the same messages commit once.
      commit.commit(2, messages);
      assertThat(table.snapshotManager().find(3)).isEmpty();
    }
  }

  /** The primary-key table {@code db.t} (2 buckets) in a catalog over {@code store}. */
  private FileSystemCatalog createTable(FaultInjectingStore store) throws Exception {
    FileSystemCatalog catalog = new FileSystemCatalog(store, Path.of(dir.toString()), Map.of());
    catalog.createTable(
        new Identifier("db", "t"),
        Schema.newBuilder()
            .column("k", DataType.intType())
            .column("v", DataType.string())
            .primaryKey("k")
            .option("bucket", "2")
            .build());
    return catalog;
  }

  private static Set<String> names(java.nio.file.Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      return new TreeSet<>();
    }
    try (Stream<java.nio.file.Path> files = Files.list(directory)) {
      return files
          .map(p -> p.getFileName().toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
