package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 25's unknown outcome, made to happen rather than hoped for: a load is interrupted (SIGINT,
 * a real process) while the publish of its second batch's snapshot is in flight ({@link
 * HeldPublishCli}), so whether that batch committed cannot be told. Then, whether the held request
 * lands late or is lost:
 *
 * <ol>
 *   <li>the run exits 130 and reports the UNKNOWN outcome of that batch;
 *   <li>nothing it wrote is deleted (every file there when the publish was in flight is still
 *       there), so a snapshot that lands late is whole: {@code table check --deep} passes;
 *   <li>the rerun of the same load commits each batch exactly once (an append table: a batch
 *       committed twice would show as extra rows);
 *   <li>{@code remove-orphan-files} afterwards leaves no unreferenced file, and the table passes
 *       {@code table check --deep}.
 * </ol>
 */
class UnknownOutcomeTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] LOAD = {
    "--generate", "3000", "--batch-rows", "1000", "--commit-user", "load"
  };

  @TempDir Path dir;

  private SignalledRuns runs;

  private Path table() {
    return dir.resolve("wh/db.db/t");
  }

  private Map<String, Long> files() throws Exception {
    try (Stream<Path> s = Files.walk(table())) {
      Map<String, Long> files = new TreeMap<>();
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        String name = table().relativize(p).toString();
        if (!name.startsWith("snapshot/")) {
          files.put(name, Files.size(p));
        }
      }
      return files;
    }
  }

  @ParameterizedTest(name = "the held publish {0}")
  @ValueSource(strings = {"is lost", "lands late"})
  void anInterruptDuringThePublishIsReportedKeepsTheFilesAndTheRerunCommitsEachBatchOnce(
      String fate) throws Exception {
    runs = new SignalledRuns(dir);
    runs.ok("create", "--schema", "k INT, v BIGINT");
    Path marker = dir.resolve("in-flight");
    Path late = dir.resolve("late-snapshot");

    List<String> command = SignalledRuns.java();
    command.addAll(
        List.of(
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-Dheld.snapshot=snapshot-2",
            "-Dheld.marker=" + marker,
            "-Dheld.late=" + late,
            "-cp",
            System.getProperty("java.class.path"),
            HeldPublishCli.class.getName()));
    command.addAll(List.of(runs.args("write", LOAD)));
    Path log = dir.resolve("child.log");
    Process child =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.exists(marker) && child.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(marker).as("the publish of snapshot 2 is in flight: " + read(log)).exists();
    // The process is blocked in the publish: what it wrote so far stays as it is.
    Map<String, Long> written = files();
    new ProcessBuilder("kill", "-INT", Long.toString(child.pid())).start().waitFor();
    assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("child ended").isTrue();
    String output = read(log);
    System.out.printf("held publish %s: exit %d, %s%n", fate, child.exitValue(), output.strip());

    // 1. Exit 130, batch 1 committed, batch 2's outcome reported unknown, batch 3 not started.
    assertThat(child.exitValue()).as(output).isEqualTo(130);
    assertThat(output)
        .as(output)
        .contains("interrupted by SIGINT at batch 2 of 3")
        .contains("1 batch(es) committed by this run")
        .contains("batch 2 has an UNKNOWN outcome")
        .contains("its files are kept");
    assertThat(late).as("the held bytes").exists();

    // 2. Nothing it wrote was deleted.
    Map<String, Long> after = files();
    assertThat(after).as(output).containsAllEntriesOf(written);
    if (fate.equals("lands late")) {
      Files.copy(late, table().resolve("snapshot/snapshot-2"));
    }
    CliRun check = CliRun.of(runs.args("check", "--deep"));
    assertThat(check.exitCode()).as(check.out() + check.err()).isZero();
    assertThat(runs.ok("read", "--count").out().strip())
        .isEqualTo(fate.equals("lands late") ? "2000" : "1000");

    // 3. The rerun commits each batch exactly once.
    CliRun rerun = runs.ok("write", LOAD);
    assertThat(rerun.out())
        .contains(
            (fate.equals("lands late") ? "2" : "1")
                + " batch(es) already committed by earlier runs");
    assertThat(runs.ok("read", "--count").out().strip()).isEqualTo("3000");
    JsonNode snapshots = JSON.readTree(runs.ok("snapshots", "--limit", "0", "--json").out());
    List<Long> identifiers = new ArrayList<>();
    for (JsonNode s : snapshots.get("snapshots")) {
      if (s.get("commitUser").asText().equals("load")) {
        identifiers.add(s.get("commitIdentifier").asLong());
      }
    }
    assertThat(identifiers).containsExactly(1L, 2L, 3L);

    // 4. Orphan removal collects what the lost batch left; nothing unreferenced remains.
    runs.ok("remove-orphan-files", "--older-than", "0s");
    assertThat(runs.ok("remove-orphan-files", "--older-than", "0s", "--dry-run").out())
        .contains("found 0 orphan");
    check = CliRun.of(runs.args("check", "--deep"));
    assertThat(check.exitCode()).as(check.out() + check.err()).isZero();
    assertThat(runs.ok("read", "--count").out().strip()).isEqualTo("3000");
  }

  private static String read(Path log) throws Exception {
    return Files.exists(log) ? Files.readString(log) : "";
  }
}
