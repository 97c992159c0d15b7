package dev.lockstep.demo;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.TestTiming;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Separate JVMs (java from {@code java.home}, this test's classpath) commit to one local table
 * directory: the local store must be safe across processes, not only threads. The checks here are
 * the test's own; they do not reuse the demo's.
 */
class MultiProcessCommitTest {

  @TempDir java.nio.file.Path dir;

  @Test
  void fourJvmsCommit250SnapshotsEachWithStrategyAuto() throws Exception {
    List<String> outputs = runWorkers(4, 250, Map.of("commit.strategy", "auto"));

    assertTable(4, 250);
    assertThat(outputs).allSatisfy(out -> assertThat(out).contains("strategy=atomic-create"));
  }

  @Test
  void threeJvmsCommitWithStrategyRename() throws Exception {
    List<String> outputs = runWorkers(3, 60, Map.of("commit.strategy", "rename"));

    assertTable(3, 60);
    assertThat(outputs).allSatisfy(out -> assertThat(out).contains("strategy=rename"));
  }

  private List<String> runWorkers(int processes, int commits, Map<String, String> options)
      throws Exception {
    List<Process> running = new ArrayList<>();
    List<File> logs = new ArrayList<>();
    try {
      for (int p = 1; p <= processes; p++) {
        File log = dir.resolve("worker-" + p + ".log").toFile();
        List<String> command =
            LocalCommitDemo.workerCommand(
                dir.resolve("table").toString(), "jvm-" + p, commits, options);
        assertThat(command.get(0)).startsWith(System.getProperty("java.home"));
        running.add(
            new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start());
        logs.add(log);
      }
      List<String> outputs = new ArrayList<>();
      for (int p = 0; p < processes; p++) {
        Process process = running.get(p);
        boolean exited = process.waitFor(TestTiming.seconds(120).toMillis(), TimeUnit.MILLISECONDS);
        String output = Files.readString(logs.get(p).toPath());
        assertThat(exited).as("worker %d finished; output: %s", p + 1, output).isTrue();
        assertThat(process.exitValue()).as("worker %d exit; output: %s", p + 1, output).isZero();
        assertThat(output).contains("committed=" + commits);
        outputs.add(output);
      }
      return outputs;
    } finally {
      for (Process process : running) {
        process.destroyForcibly();
      }
    }
  }

  /** Snapshots 1..N*M exist exactly once each, and every commit id appears exactly once. */
  private void assertTable(int processes, int commits) throws IOException {
    int total = processes * commits;
    SnapshotLog log =
        new SnapshotLog(
            new LocalFileIO(), Path.of(dir.toString()).child("table").child("snapshot"));
    List<Long> ids = log.listIds();
    List<Long> expected = new ArrayList<>();
    for (long id = 1; id <= total; id++) {
      expected.add(id);
    }
    assertThat(ids).isEqualTo(expected);
    Map<String, Long> byCommitId = new HashMap<>();
    Map<String, Integer> perWriter = new HashMap<>();
    for (long id : ids) {
      Map<String, String> fields = LocalCommitDemo.parseSnapshot(log.read(id));
      assertThat(fields.get("id")).as("snapshot-%d names itself", id).isEqualTo(String.valueOf(id));
      Long previous = byCommitId.put(fields.get("commitId"), id);
      assertThat(previous)
          .as("commit id %s in snapshots %s and %s", fields.get("commitId"), previous, id)
          .isNull();
      perWriter.merge(fields.get("commitUser"), 1, Integer::sum);
    }
    assertThat(byCommitId).hasSize(total);
    assertThat(perWriter)
        .hasSize(processes)
        .allSatisfy((writer, n) -> assertThat(n).as(writer).isEqualTo(commits));
    assertThat(log.latestId()).hasValue(total);
    assertThat(new String(log.read(total), UTF_8)).contains("\"id\":" + total);
  }
}
