package dev.lockstep.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.InJvmLockService;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SnapshotCommitter#builder}: the two ways to finish it, and their misuse. */
class CommitterBuilderTest {

  @TempDir java.nio.file.Path dir;

  private SnapshotCommitter.Builder builder() {
    return SnapshotCommitter.builder(new LocalFileIO(), Path.of(dir.toString()), "db.t");
  }

  @Test
  void catalogOptionsOpenAndParsedOptionsBuild() throws Exception {
    try (SnapshotCommitter opened = builder().options(Map.of()).open();
        InJvmLockService lock = new InJvmLockService();
        SnapshotCommitter built =
            builder()
                .options(CommitOptions.from(Map.of("lock.enabled", "true", "lock.type", "in-jvm")))
                .lockService(lock)
                .build()) {
      assertThat(opened.strategy()).isEqualTo("atomic-create");
      assertThat(built.strategy()).isEqualTo("lock + atomic-create");
      assertThat(built.locked()).isTrue();
    }
  }

  @Test
  void eachFinishRefusesTheOtherKindOfOptions() {
    assertThatThrownBy(() -> builder().options(Map.of()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("use open()");
    assertThatThrownBy(() -> builder().options(CommitOptions.from(Map.of())).open())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("build()");
    assertThatThrownBy(() -> builder().build()).isInstanceOf(IllegalStateException.class);
  }
}
