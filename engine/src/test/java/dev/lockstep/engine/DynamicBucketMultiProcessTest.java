package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.table.FileStoreTable;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three writer processes (three commit users) upsert overlapping random keys into the one partition
 * of a dynamic-bucket table ({@code bucket = -1}) on the local store (lock-free commits through
 * atomic rename) for 30 seconds ({@code -Dlockstep.dynbucket.seconds}), compacting as they go.
 * Afterwards every key is read exactly once, with the value of the last committed write: the model
 * is rebuilt from the writers' logs in snapshot order (issue 19, "many writers on one
 * dynamic-bucket partition without duplicates").
 */
class DynamicBucketMultiProcessTest {

  private static final int WRITERS = 3;
  private static final int KEYS = 20_000;
  private static final int ROWS = 500;

  @TempDir Path dir;

  @Test
  void threeWriterProcessesLeaveOneRowPerKeyWithTheLastCommittedValue() throws Exception {
    long millis =
        (long) (Double.parseDouble(System.getProperty("lockstep.dynbucket.seconds", "30")) * 1000);
    FileStoreTable table =
        TestTables.keyValueTable(
            dir,
            Map.of(
                "bucket", "-1",
                "dynamic-bucket.target-row-num", "2000",
                "num-sorted-run.compaction-trigger", "3",
                "commit.max-retries", "50"));
    List<Process> children = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      children.add(start("writer-" + w, millis, 17 + w));
    }
    for (int w = 0; w < WRITERS; w++) {
      Process child = children.get(w);
      boolean exited = child.waitFor(millis + 180_000, TimeUnit.MILLISECONDS);
      if (!exited) {
        children.forEach(Process::destroyForcibly);
      }
      assertThat(exited).as("writer %d finished", w).isTrue();
      String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(child.exitValue())
          .as("writer %d: %s %s", w, output, Files.readString(dir.resolve("writer-" + w + ".err")))
          .isZero();
      System.out.println("writer " + w + ": " + output.trim() + " (key-hash conflicts re-routed)");
    }
    // The model: every commit's batch, applied in snapshot order.
    TreeMap<Long, Map<Integer, String>> bySnapshot = new TreeMap<>();
    int commits = 0;
    for (int w = 0; w < WRITERS; w++) {
      for (String line : Files.readAllLines(dir.resolve("writer-" + w + ".log"))) {
        String[] parts = line.split(" ");
        Map<Integer, String> batch = new HashMap<>();
        for (int i = 1; i < parts.length; i++) {
          int eq = parts[i].indexOf('=');
          batch.put(Integer.parseInt(parts[i].substring(0, eq)), parts[i].substring(eq + 1));
        }
        assertThat(bySnapshot.put(Long.parseLong(parts[0]), batch))
            .as("two commits in snapshot %s", parts[0])
            .isNull();
        commits++;
      }
    }
    Map<Integer, String> model = new TreeMap<>();
    bySnapshot.values().forEach(model::putAll);
    // readKeyValues fails on a key read twice.
    Map<Integer, String> content = TestTables.readKeyValues(table);
    System.out.printf(
        "%d commits, %d keys, %d buckets%n",
        commits,
        content.size(),
        table.newScan().plan().splits().stream().mapToInt(s -> s.bucket()).max().orElse(-1) + 1);
    assertThat(commits).isGreaterThan(WRITERS);
    assertThat(content).isEqualTo(model);
  }

  private Process start(String user, long millis, long seed) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    ProcessBuilder builder =
        new ProcessBuilder(
            java,
            "-Xmx192m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            classpath,
            DynamicBucketWriterMain.class.getName(),
            dir.toString(),
            user,
            Long.toString(millis),
            Integer.toString(KEYS),
            Integer.toString(ROWS),
            Long.toString(seed),
            dir.resolve(user + ".log").toString());
    File err = dir.resolve(user + ".err").toFile();
    builder.redirectError(ProcessBuilder.Redirect.appendTo(err));
    return builder.start();
  }
}
