package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, idempotent loads: {@code table write} run as a real process, killed with SIGKILL at
 * random points and run again, commits each batch exactly once, also on an append table (where a
 * batch committed twice would be doubled rows).
 */
class IdempotentLoadTest {

  private static final int ROWS = 2000;
  private static final int BATCH = 50;
  private static final int BATCHES = ROWS / BATCH;

  @TempDir Path dir;

  private String[] args(String command, String... more) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "table",
                command,
                "--warehouse",
                dir.resolve("wh").toString(),
                "--table",
                "shop.events"));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  private CliRun ok(String command, String... more) {
    CliRun run = CliRun.of(args(command, more));
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    return run;
  }

  /**
   * The APPEND snapshots: one per committed batch (the writer also compacts the append table's
   * small files, in COMPACT snapshots of their own).
   */
  private long snapshots() throws IOException {
    Path snapshotDir = dir.resolve("wh/shop.db/events/snapshot");
    if (!Files.isDirectory(snapshotDir)) {
      return 0;
    }
    List<Path> files;
    try (Stream<Path> listed = Files.list(snapshotDir)) {
      files = listed.filter(p -> p.getFileName().toString().startsWith("snapshot-")).toList();
    }
    long appends = 0;
    for (Path file : files) {
      if (APPEND.matcher(Files.readString(file)).find()) {
        appends++;
      }
    }
    return appends;
  }

  private static final java.util.regex.Pattern APPEND =
      java.util.regex.Pattern.compile("\"commitKind\"\\s*:\\s*\"APPEND\"");

  private Process start(String... cliArgs) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                System.getProperty("java.class.path"),
                LockstepCli.class.getName()));
    command.addAll(List.of(cliArgs));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("child.log").toFile())
        .start();
  }

  @Test
  void aLoadKilledWithSigkillAndRunAgainCommitsEveryBatchOnce() throws Exception {
    ok("create", "--schema", "id INT NOT NULL, s STRING", "-o", "bucket=2");
    List<String> lines = new ArrayList<>(List.of("id,s"));
    for (int i = 0; i < ROWS; i++) {
      lines.add(i + ",row-" + i);
    }
    Path csv = dir.resolve("events.csv");
    Files.write(csv, lines);
    String[] load = args("write", "--csv", csv.toString(), "--batch-rows", Integer.toString(BATCH));

    Random random = new Random();
    int killedMidway = 0;
    boolean finished = false;
    for (int run = 0; run < 12 && !finished; run++) {
      long before = snapshots();
      long target = Math.min(BATCHES - 1, before + 1 + random.nextInt(6));
      Process child = start(load);
      while (child.isAlive() && snapshots() < target) {
        Thread.sleep(2);
      }
      Thread.sleep(random.nextInt(25));
      if (child.isAlive()) {
        child.destroyForcibly(); // SIGKILL
        child.waitFor(60, TimeUnit.SECONDS);
        long after = snapshots();
        if (after > 0 && after < BATCHES) {
          killedMidway++;
        }
      } else {
        assertThat(child.exitValue()).as(Files.readString(dir.resolve("child.log"))).isZero();
        finished = true;
      }
    }
    assertThat(killedMidway).as("loads killed after some of their batches committed").isPositive();

    // The rerun to the end.
    long beforeLast = snapshots();
    CliRun last = ok("write", "--csv", csv.toString(), "--batch-rows", Integer.toString(BATCH));

    List<Integer> ids =
        ok("read", "--columns", "id")
            .out()
            .lines()
            .skip(1)
            .map(Integer::parseInt)
            .sorted()
            .toList();
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      expected.add(i);
    }
    assertThat(ids).as("every row exactly once").isEqualTo(expected);
    assertThat(snapshots()).as("one APPEND snapshot per batch").isEqualTo(BATCHES);
    if (beforeLast < BATCHES) {
      assertThat(last.out()).contains("already committed by earlier runs");
    } else {
      // The last kill came after the killed run's last commit: every batch was in already.
      assertThat(last.out()).contains("all " + BATCHES + " batch(es) already committed");
    }

    // What the killed runs wrote and never committed is reclaimed by orphan removal.
    ok("remove-orphan-files", "--older-than", "0s");
    assertThat(ok("remove-orphan-files", "--older-than", "0s", "--dry-run").out())
        .contains("found 0 orphan");
    assertThat(ok("read", "--count").out().trim()).isEqualTo(Integer.toString(ROWS));

    // Another load of the same file is the same load: nothing is committed again.
    assertThat(ok("write", "--csv", csv.toString(), "--batch-rows", Integer.toString(BATCH)).out())
        .contains("all " + BATCHES + " batch(es) already committed");
    assertThat(ok("read", "--count").out().trim()).isEqualTo(Integer.toString(ROWS));
    // A new commit user makes it a new load.
    ok("write", "--csv", csv.toString(), "--commit-user", "second-load");
    assertThat(ok("read", "--count").out().trim()).isEqualTo(Integer.toString(2 * ROWS));
  }
}
