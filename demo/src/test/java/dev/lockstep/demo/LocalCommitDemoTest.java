package dev.lockstep.demo;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's own checks pass on a good run and fail on a broken table. */
class LocalCommitDemoTest {

  @TempDir java.nio.file.Path dir;
  private final LocalFileIO io = new LocalFileIO();

  private String captured(ThrowingRunnable action) throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buffer, true, UTF_8));
    try {
      action.run();
    } finally {
      System.setOut(original);
    }
    return buffer.toString(UTF_8);
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private void snapshot(long id, String user, long identifier, String commitId) throws IOException {
    io.createAtomically(
        Path.of(dir.toString()).child("snapshot").child("snapshot-" + id),
        LocalCommitDemo.snapshotJson(id, user, identifier, commitId));
  }

  @Test
  void aRunOfTwoProcessesPassesEveryCheckAndNamesTheStrategy() throws Exception {
    boolean[] ok = new boolean[1];
    String out =
        captured(() -> ok[0] = LocalCommitDemo.coordinate(dir.toString(), 2, 20, Map.of()));

    assertThat(ok[0]).as(out).isTrue();
    assertThat(out)
        .contains("[ok]     snapshots are exactly 1..40")
        .contains("every commit id appears exactly once")
        .contains("commit strategy used: atomic-create")
        .contains("ALL CHECKS PASSED")
        .doesNotContain("[FAILED]");
  }

  @Test
  void aGapOrADoubledCommitFailsTheChecks() throws Exception {
    snapshot(1, "w", 1, "a");
    snapshot(2, "w", 2, "a"); // commit "a" landed twice
    snapshot(4, "w", 3, "c"); // snapshot 3 is missing

    boolean[] ok = new boolean[1];
    String out = captured(() -> ok[0] = LocalCommitDemo.verify(dir.toString(), 1, 3));

    assertThat(ok[0]).isFalse();
    assertThat(out)
        .contains("[FAILED] snapshots are exactly 1..3")
        .contains("[FAILED] every commit id appears exactly once");
  }

  @Test
  void badArgumentsAreRefusedWithTheUsage() {
    assertThatThrownBy(() -> LocalCommitDemo.main(new String[] {"--processes", "zero"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--processes")
        .hasMessageContaining("Usage");
    assertThatThrownBy(() -> LocalCommitDemo.main(new String[] {"--option", "novalue"}))
        .hasMessageContaining("key=value");
  }
}
