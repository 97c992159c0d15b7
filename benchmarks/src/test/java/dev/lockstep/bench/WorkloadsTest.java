package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.bench.Workloads.Contention;
import dev.lockstep.bench.Workloads.ContentionRun;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadsTest {

  @Test
  void poolingRoundsSumsCountsAndTakesPercentilesOverEveryCommit() {
    LatencyRecorder fast = new LatencyRecorder();
    LatencyRecorder slow = new LatencyRecorder();
    for (int i = 1; i <= 100; i++) {
      fast.record(i * 1_000_000L);
      slow.record((100 + i) * 1_000_000L);
    }
    Contention c =
        Contention.pool(
            "lockstep",
            "append",
            8,
            List.of(
                new ContentionRun(100, 10, fast, 20, 1, 0, 100, 10_000, 10_000),
                new ContentionRun(100, 20, slow, 40, 2, 3, 100, 10_000, 10_000)));

    assertThat(c.commits()).isEqualTo(200);
    assertThat(c.commitsPerSecond()).isEqualTo(200 / 30.0);
    assertThat(c.perRoundCommitsPerSecond()).containsExactly(10.0, 5.0);
    assertThat(c.p50Millis()).isEqualTo(100.0);
    assertThat(c.p99Millis()).isEqualTo(198.0);
    assertThat(c.maxMillis()).isEqualTo(200.0);
    assertThat(c.perRoundP99Millis()).containsExactly(99.0, 199.0);
    assertThat(c.retriesPerCommit()).isEqualTo(0.3);
    assertThat(c.gaveUp()).isEqualTo(3);
    assertThat(c.otherFailures()).isEqualTo(3);
    assertThat(c.rowsExpected()).isEqualTo(20_000);
  }

  @Test
  void expectedRowsAddUpOverRoundsEachOnItsOwnTable() {
    Contention c =
        Contention.pool(
            "paimon",
            "pk",
            1,
            List.of(
                new ContentionRun(1, 1, new LatencyRecorder(), 0, 0, 0, 1, 90, 90),
                new ContentionRun(1, 1, new LatencyRecorder(), 0, 0, 0, 1, 95, 96)));
    assertThat(c.rowsRead()).isEqualTo(185);
    assertThat(c.rowsExpected()).isEqualTo(186);
  }

  @Test
  void textIsThirtyTwoLowerCaseLettersAndDeterministic() {
    assertThat(Workloads.text(7)).hasSize(32).matches("[a-z]{32}").isEqualTo(Workloads.text(7));
    assertThat(Workloads.text(7)).isNotEqualTo(Workloads.text(8));
  }
}
