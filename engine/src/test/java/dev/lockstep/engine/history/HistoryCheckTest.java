package dev.lockstep.engine.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.history.HistoryChecker.Ack;
import dev.lockstep.engine.history.HistoryChecker.Config;
import dev.lockstep.engine.history.HistoryChecker.Stats;
import dev.lockstep.engine.history.HistoryChecker.Strategy;
import dev.lockstep.testing.TestTiming;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The randomized history checker ({@link HistoryChecker}) for each strategy, with and without
 * expiration, in threads and in separate processes. CI size by default; {@code
 * scripts/history-check} runs it longer through the system properties {@code
 * lockstep.history.threads}, {@code .commits}, {@code .rounds} and {@code .seed} (a failing run
 * prints its seed; passing it replays the same faults, not the same thread schedule).
 */
class HistoryCheckTest {

  private static final int THREADS = Integer.getInteger("lockstep.history.threads", 4);
  private static final int COMMITS = Integer.getInteger("lockstep.history.commits", 8);
  private static final int ROUNDS = Integer.getInteger("lockstep.history.rounds", 1);
  private static final Long SEED = Long.getLong("lockstep.history.seed");

  /**
   * {@code STRATEGY} or {@code STRATEGY:retainMax}: run only those thread runs (and no processes).
   */
  private static final String ONLY = System.getProperty("lockstep.history.only", "");

  @TempDir Path dir;

  static Stream<Arguments> runs() {
    List<Arguments> runs = new ArrayList<>();
    for (Strategy strategy : Strategy.values()) {
      for (int retainMax : new int[] {2, 0}) {
        if (selected(strategy, retainMax)) {
          runs.add(Arguments.of(strategy, retainMax));
        }
      }
    }
    return runs.stream();
  }

  private static boolean selected(Strategy strategy, int retainMax) {
    if (ONLY.isBlank()) {
      return true;
    }
    for (String one : ONLY.split(",")) {
      String[] parts = one.trim().split(":");
      if (parts[0].equals(strategy.name())
          && (parts.length == 1 || Integer.parseInt(parts[1]) == retainMax)) {
        return true;
      }
    }
    return false;
  }

  @ParameterizedTest(name = "{0}, retain max {1} (0 = no expiration)")
  @MethodSource("runs")
  void threadsWithFaults(Strategy strategy, int retainMax) throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      long seed = SEED != null ? SEED + round : System.nanoTime();
      Config config = new Config(strategy, THREADS, COMMITS, 3, seed, retainMax, 0.1, 0.25, 15);
      dev.lockstep.fs.Path warehouse = dev.lockstep.fs.Path.of(dir.resolve("r" + round).toString());
      HistoryChecker.createTable(warehouse, config);
      Stats stats = new Stats();
      List<Ack> acks = HistoryChecker.run(warehouse, config, "t", stats, ack -> {});
      List<String> users = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        users.add("t" + i);
      }
      List<String> problems = Verdict.check(warehouse, config, users, acks, stats);
      assertThat(problems)
          .as("%s, seed %s (%s); snapshots %s", config, seed, stats, listing(warehouse))
          .isEmpty();
      System.out.printf(
          "history check %s retain %d seed %d: %d commits, %s%n",
          strategy, retainMax, seed, acks.size(), stats);
    }
  }

  /**
   * Three committer processes (two threads each; atomic create and rename mixed, which exclude each
   * other on one local store) and two threads in this JVM, with faults and expiration.
   */
  @Test
  void separateProcessesWithFaults() throws Exception {
    if (!ONLY.isBlank()) {
      return; // a selected run (scripts/history-check --only) is in threads only
    }
    long seed = SEED != null ? SEED : System.nanoTime();
    Config config = new Config(Strategy.ATOMIC_CREATE, 2, COMMITS, 3, seed, 2, 0.1, 0.25, 15);
    dev.lockstep.fs.Path warehouse = dev.lockstep.fs.Path.of(dir.resolve("wh").toString());
    HistoryChecker.createTable(warehouse, config);
    List<Process> children = new ArrayList<>();
    List<String> users = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      Strategy strategy = p % 2 == 0 ? Strategy.ATOMIC_CREATE : Strategy.RENAME;
      children.add(startChild(warehouse, strategy, "p" + p + "-", config.withSeed(seed + p + 1)));
      users.add("p" + p + "-0");
      users.add("p" + p + "-1");
    }
    Stats stats = new Stats();
    List<Ack> acks =
        new ArrayList<>(HistoryChecker.run(warehouse, config, "local-", stats, ack -> {}));
    users.add("local-0");
    users.add("local-1");
    for (int p = 0; p < children.size(); p++) {
      Process child = children.get(p);
      assertThat(child.waitFor((long) (300 * TestTiming.FACTOR), TimeUnit.SECONDS)).isTrue();
      String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(child.exitValue())
          .as("child %d: %s; see %s", p, out, dir.resolve("p" + p + ".err"))
          .isZero();
      assertThat(out).as("child %d", p).contains("done").doesNotContain("went back");
      for (String line : Files.readAllLines(dir.resolve("p" + p + ".acks"))) {
        acks.add(Ack.parse(line));
      }
    }
    List<String> problems = Verdict.check(warehouse, config, users, acks, stats);
    assertThat(problems)
        .as("seed %s (%s); snapshots %s", seed, stats, listing(warehouse))
        .isEmpty();
    System.out.printf(
        "history check in processes seed %d: %d commits, %s%n", seed, acks.size(), stats);
  }

  private Process startChild(
      dev.lockstep.fs.Path warehouse, Strategy strategy, String prefix, Config config)
      throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    int p = children(prefix);
    ProcessBuilder builder =
        new ProcessBuilder(
            java,
            "-Xmx128m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            classpath,
            HistoryCheckMain.class.getName(),
            warehouse.toString(),
            strategy.name(),
            prefix,
            Integer.toString(config.threads()),
            Integer.toString(config.commits()),
            Integer.toString(config.rows()),
            Long.toString(config.seed()),
            Integer.toString(config.retainMax()),
            Double.toString(config.lostAnswers()),
            Double.toString(config.pauses()),
            Integer.toString(config.interruptEveryMillis()),
            dir.resolve("p" + p + ".acks").toString());
    File err = dir.resolve("p" + p + ".err").toFile();
    builder.redirectError(ProcessBuilder.Redirect.appendTo(err));
    return builder.start();
  }

  private static int children(String prefix) {
    return Integer.parseInt(prefix.substring(1, prefix.indexOf('-')));
  }

  private static String listing(dev.lockstep.fs.Path warehouse) {
    File snapshots = new File(warehouse.toString(), "db.db/history/snapshot");
    String[] names = snapshots.list();
    return names == null ? "(none)" : String.join(" ", new java.util.TreeSet<>(List.of(names)));
  }
}
