package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.testing.TestTiming;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer process is killed (SIGKILL) at random points during 50 commits and restarted with the
 * same commit user and identifiers until it finishes: no commit is lost or doubled.
 */
class WriterRestartTest {

  static final int COMMITS = 50;
  static final int ROWS = 4;
  static final String USER = "restarting-writer";

  @TempDir Path dir;

  @Test
  void killedAndRestartedWriterCommitsEveryIdentifierExactlyOnce() throws Exception {
    TestTables.appendTable(dir, Map.of());
    Random random = new Random();
    long seed = random.nextLong();
    random.setSeed(seed);
    int kills = 0;
    boolean done = false;
    List<String> log = new ArrayList<>();
    for (int run = 0; run < 40 && !done; run++) {
      // Kill after a random number of commit lines (0..9), plus a random delay that lands the
      // kill anywhere inside the next commit; the last runs are left to finish.
      int killAfterLines = run < 8 ? random.nextInt(10) : Integer.MAX_VALUE;
      Process child = startChild();
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        int lines = 0;
        String line;
        while ((line = out.readLine()) != null) {
          log.add("run " + run + ": " + line);
          if (line.equals("done")) {
            done = true;
          } else if (++lines > killAfterLines) {
            Thread.sleep(random.nextInt(40));
            child.destroyForcibly();
            kills++;
            break;
          }
        }
      } finally {
        if (!child.waitFor((long) (60 * TestTiming.FACTOR), TimeUnit.SECONDS)) {
          child.destroyForcibly();
        }
      }
      if (!done && killAfterLines == Integer.MAX_VALUE && child.exitValue() != 0) {
        throw new AssertionError(
            "The writer failed with exit code "
                + child.exitValue()
                + "; see "
                + dir.resolve("child.err")
                + "; log "
                + log);
      }
    }
    assertThat(done).as("the writer finished (seed %s): %s", seed, log).isTrue();
    assertThat(kills).as("kills (seed %s)", seed).isPositive();

    FileStoreTable table = TestTables.catalog(dir).getTable(Identifier.parse("db.log"));
    Map<Long, Integer> rowsPerCommit = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      rowsPerCommit.merge((Long) row.get(1), 1, Integer::sum);
    }
    Map<Long, Integer> expected = new TreeMap<>();
    for (long id = 1; id <= COMMITS; id++) {
      expected.put(id, ROWS);
    }
    assertThat(rowsPerCommit)
        .as("rows per identifier (seed %s, %d kills)", seed, kills)
        .isEqualTo(expected);
    Set<Long> identifiers = new HashSet<>();
    long latest = table.snapshotManager().latestId().getAsLong();
    for (long id = 1; id <= latest; id++) {
      Snapshot s = table.snapshotManager().get(id);
      if (s.commitKind() == dev.lockstep.engine.snapshot.CommitKind.COMPACT) {
        continue; // the writer compacts the small files too, under the batch's identifier
      }
      assertThat(identifiers.add(s.commitIdentifier()))
          .as("identifier %s twice", s.commitIdentifier())
          .isTrue();
    }
    assertThat(identifiers).hasSize(COMMITS);
    System.out.printf("%d kills, %d snapshots%n", kills, latest);
  }

  private Process startChild() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    ProcessBuilder builder =
        new ProcessBuilder(
            java,
            "-Xmx128m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            classpath,
            CrashingWriterMain.class.getName(),
            dir.toString(),
            USER,
            Integer.toString(COMMITS),
            Integer.toString(ROWS));
    File err = dir.resolve("child.err").toFile();
    builder.redirectError(ProcessBuilder.Redirect.appendTo(err));
    return builder.start();
  }
}
