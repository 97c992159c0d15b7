package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, interruption: {@code table write} and {@code table compact --full} run as real
 * processes and get SIGINT ({@code kill -INT}) at random points, 20 runs each. Every run ends with
 * exit code 130 (or 0 when it finished first), says what it committed when the signal reached the
 * command, and leaves the table passing {@code table check} with no unreferenced file (orphan
 * removal with a guard of 0 finds none) unless the run reported an unknown outcome ({@link
 * SignalledRuns}).
 *
 * <p>A child inherits an ignored SIGINT from this JVM (a test run started as a background job
 * without job control: {@code mvn test &} in a script), and a JVM whose SIGINT is ignored installs
 * no handler for it (HotSpot leaves it ignored, as {@code nohup} wants): every run would then
 * finish as if never signalled, and the test would pass without testing anything. So the children
 * are started behind {@code env --default-signal=INT} then ({@link SignalledRuns#java}); where that
 * is not available the test fails at once, saying so; and the writes, which run long enough for a
 * random point to land mid-way, must have been interrupted at least once.
 */
class InterruptTest {

  private static final int RUNS = 20;

  @TempDir Path dir;

  private SignalledRuns runs;

  @BeforeEach
  void createTable() {
    assertThat(SignalledRuns.childrenTakeSigint())
        .as(
            "SIGINT is ignored in this JVM, and so in the processes it starts, and this system's"
                + " 'env' has no --default-signal (coreutils 8.31 or later) to give it back: none of"
                + " them can be interrupted. Run the tests in the foreground, or in a shell with job"
                + " control (set -m), not as a background job of a script")
        .isTrue();
    runs = new SignalledRuns(dir);
    runs.ok(
        "create",
        "--schema",
        "k INT NOT NULL, v BIGINT, s STRING",
        "--primary-key",
        "k",
        "-o",
        "bucket=2",
        "-o",
        "write-only=true");
  }

  @Test
  void writesInterruptedAtRandomPointsLeaveACheckedTableAndNoOrphan() throws Exception {
    for (int run = 0; run < RUNS; run++) {
      runs.interruptAt(
          "INT",
          400,
          "write",
          "--generate",
          "3000",
          "--offset",
          Integer.toString(run * 1000),
          "--batch-rows",
          "300");
    }
    System.out.printf("writes: %d of %d runs interrupted mid-way%n", runs.interrupted(), RUNS);
    assertThat(runs.interrupted()).as("writes interrupted mid-way").isPositive();
  }

  @Test
  void compactionsInterruptedAtRandomPointsLeaveACheckedTableAndNoOrphan() throws Exception {
    long rows = 0;
    for (int run = 0; run < RUNS; run++) {
      // New rows in every bucket, so that each full compaction has work: two runs per bucket.
      runs.ok(
          "write",
          "--generate",
          "2000",
          "--offset",
          Integer.toString(run * 1000),
          "--batch-rows",
          "1000");
      rows = run * 1000L + 2000;
      String output = runs.interruptAt("INT", 300, "compact", "--full", "--no-expire");
      if (output.contains("interrupted by SIGINT")) {
        assertThat(output).as(output).containsPattern("nothing committed|UNKNOWN");
      }
      // Whatever the run did, the table reads back every row once.
      assertThat(runs.ok("count").out()).as(output).contains(Long.toString(rows));
    }
    System.out.printf("compactions: %d of %d runs interrupted mid-way%n", runs.interrupted(), RUNS);
  }
}
