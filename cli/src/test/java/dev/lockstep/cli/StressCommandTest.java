package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lockstep stress} runs, verifies and reports, in this JVM and across processes. */
class StressCommandTest {

  @TempDir Path warehouse;

  @Test
  void inlineCompactionInThisJvmHoldsEveryInvariant() {
    CliRun run =
        CliRun.of(
            "stress",
            "--warehouse",
            warehouse.toString(),
            "--writers",
            "3",
            "--commits",
            "8",
            "--rows",
            "50",
            "--keys",
            "300",
            "--json");
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out())
        .contains("\"ok\":true")
        .contains("\"commits\":24")
        .contains("\"appendSnapshots\":24")
        .contains("\"problems\":[]");
  }

  @Test
  void threeProcessesWithADedicatedCompactorHoldEveryInvariant() {
    CliRun run =
        CliRun.of(
            "stress",
            "--warehouse",
            warehouse.toString(),
            "--processes",
            "3",
            "--writers",
            "2",
            "--commits",
            "5",
            "--rows",
            "40",
            "--keys",
            "200",
            "--compaction",
            "dedicated");
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out())
        .contains("commits          30 of 30 planned")
        .contains("verdict          OK");
  }

  @Test
  void aggressiveRetentionOptionsCannotExpireSnapshotsDuringARun() {
    // The stress table stores its own retention, which wins over catalog options: verification
    // still reads every snapshot from 1.
    CliRun run =
        CliRun.of(
            "stress",
            "--warehouse",
            warehouse.toString(),
            "--writers",
            "2",
            "--commits",
            "15",
            "--rows",
            "20",
            "--keys",
            "100",
            "-o",
            "snapshot.num-retained.min=1",
            "-o",
            "snapshot.time-retained=0 s",
            "-o",
            "num-sorted-run.compaction-trigger=2",
            "--json");
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out()).contains("\"ok\":true").contains("\"appendSnapshots\":30");
    assertThat(warehouse.resolve("default.db/stress/snapshot/snapshot-1")).exists();
  }

  @Test
  void anExistingTableIsRefusedAndLeftAlone() {
    CliRun first =
        CliRun.of(
            "stress",
            "--warehouse",
            warehouse.toString(),
            "--writers",
            "1",
            "--commits",
            "2",
            "--json");
    assertThat(first.exitCode()).isZero();
    CliRun second =
        CliRun.of(
            "stress", "--warehouse", warehouse.toString(), "--writers", "1", "--commits", "2");
    assertThat(second.exitCode()).isEqualTo(2);
    assertThat(second.err().strip())
        .startsWith("lockstep: table default.stress already exists")
        .contains("--table")
        .doesNotContain("\n");
  }
}
