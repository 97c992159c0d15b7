package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.InJvmLockFactory;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code commit.strategy}: auto picks exactly as docs/commit-protocol.md#design-2-3-strategies
 * says, and refuses what is unsafe.
 */
class StrategySelectionTest {

  @TempDir java.nio.file.Path dir;
  private final LocalFileIO local = new LocalFileIO();

  private Path snapshots() {
    return Path.of(dir.toString()).child("snapshot");
  }

  private String strategy(FileIO store, Map<String, String> options, InJvmLockService lock) {
    return SnapshotCommitter.builder(store, snapshots(), "db.t")
        .options(CommitOptions.from(options))
        .lockService(lock)
        .build()
        .strategy();
  }

  @Test
  void autoUsesAtomicCreateWhenTheStoreHasIt() {
    assertThat(strategy(local, Map.of(), null)).isEqualTo("atomic-create");
  }

  @Test
  void autoUsesRenameWhenTheStoreHasOnlyAtomicRename() {
    assertThat(strategy(CapabilityHidingFileIO.atomicRenameOnly(local), Map.of(), null))
        .isEqualTo("rename");
  }

  @Test
  void autoRefusesAStoreWithoutPrimitivesAndNamesTheFix() throws IOException {
    FileIO hidden = new CapabilityHidingFileIO(local);

    assertThatThrownBy(() -> strategy(hidden, Map.of(), null))
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("Refusing to commit")
        .hasMessageContaining("lock.enabled=true")
        .hasMessageContaining("lock.type");
    assertThatThrownBy(
            () -> SnapshotCommitter.builder(hidden, snapshots(), "db.t").options(Map.of()).open())
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("lock.enabled=true");
    try (var files = Files.list(dir)) {
      assertThat(files).as("nothing written").isEmpty();
    }
  }

  @Test
  void anExplicitStrategyTheStoreLacksIsRefused() {
    assertThatThrownBy(
            () ->
                strategy(
                    CapabilityHidingFileIO.atomicRenameOnly(local),
                    Map.of("commit.strategy", "atomic-create"),
                    null))
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("atomic-create")
        .hasMessageContaining("lock.enabled=true");
    assertThatThrownBy(
            () ->
                strategy(
                    CapabilityHidingFileIO.atomicCreateOnly(local),
                    Map.of("commit.strategy", "rename"),
                    null))
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("copy + delete");
    assertThat(strategy(local, Map.of("commit.strategy", "rename"), null)).isEqualTo("rename");
  }

  @Test
  void lockEnabledCommitsUnderTheLockAndStillUsesTheStorePrimitive() {
    try (InJvmLockService lock = new InJvmLockService()) {
      Map<String, String> options = Map.of("lock.enabled", "true", "lock.type", "in-jvm");
      assertThat(strategy(local, options, lock)).isEqualTo("lock + atomic-create");
      assertThat(strategy(CapabilityHidingFileIO.atomicRenameOnly(local), options, lock))
          .isEqualTo("lock + rename");
      assertThat(strategy(new CapabilityHidingFileIO(local), options, lock))
          .isEqualTo("lock (plain write)");
    }
  }

  @Test
  void anExplicitLockStrategyCommitsUnderTheLock() throws Exception {
    try (InJvmLockService lock = new InJvmLockService()) {
      CommitOptions options =
          CommitOptions.from(
              Map.of("commit.strategy", "lock", "lock.enabled", "true", "lock.type", "in-jvm"));
      assertThat(SnapshotCommitter.resolve(local, options, lock, "db.t").describe())
          .isEqualTo("lock + atomic-create");
      try (SnapshotCommitter committer =
          SnapshotCommitter.builder(local, snapshots(), "db.t")
              .options(options)
              .lockService(lock)
              .build()) {
        assertThat(committer.locked()).isTrue();
        assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).committed())
            .isTrue();
      }
      assertThat(lock.grantedLeases()).isEqualTo(1);
    }
  }

  @Test
  void openFindsTheLockServiceByTypeAndCommitsAndCloseClosesIt() throws Exception {
    String name = "strategy-selection-" + dir.getFileName();
    Map<String, String> options =
        Map.of("lock.enabled", "true", "lock.type", "in-jvm", InJvmLockFactory.NAME, name);
    InJvmLockService opened;
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(new CapabilityHidingFileIO(local), snapshots(), "db.t")
            .options(options)
            .open()) {
      opened = InJvmLockFactory.opened(name);
      assertThat(committer.strategy()).isEqualTo("lock (plain write)");
      assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
      assertThat(committer.log().read(1)).isEqualTo("one".getBytes(UTF_8));
      assertThat(opened.grantedLeases()).as("the service the committer opened").isEqualTo(1);
    }
    // The committer owned it: closed with the committer.
    assertThatThrownBy(() -> opened.acquire("db.t", Duration.ZERO))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is closed");
  }

  @Test
  void aLockWithoutItsOptionsIsRefusedWithTheFix() {
    assertThatThrownBy(
            () ->
                SnapshotCommitter.builder(local, snapshots(), "db.t")
                    .options(Map.of("commit.strategy", "lock"))
                    .open())
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("lock.enabled=true")
        .hasMessageContaining("lock.type");
    assertThatThrownBy(
            () ->
                SnapshotCommitter.builder(local, snapshots(), "db.t")
                    .options(Map.of("lock.enabled", "true"))
                    .open())
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("lock.type");
    assertThatThrownBy(
            () ->
                SnapshotCommitter.builder(local, snapshots(), "db.t")
                    .options(Map.of("lock.enabled", "true", "lock.type", "nope"))
                    .open())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[in-jvm, test-os-file]");
  }

  @Test
  void anExplicitLockFreeStrategyOpensNoLockService() throws IOException {
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(local, snapshots(), "db.t")
            .options(Map.of("commit.strategy", "atomic-create", "lock.enabled", "true"))
            .open()) {
      assertThat(committer.strategy()).isEqualTo("atomic-create");
    }
  }

  @Test
  void snapshotIdsStartAtOne() {
    SnapshotCommitter committer =
        SnapshotCommitter.builder(local, snapshots(), "db.t")
            .options(CommitOptions.from(Map.of()))
            .build();

    assertThatThrownBy(() -> committer.commit(0, SnapshotContent.of(new byte[] {1})))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("start at 1");
  }
}
