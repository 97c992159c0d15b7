package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.DoubleStream;
import org.junit.jupiter.api.Test;

/** ScaleBench's contention report: round order, medians, and failed runs as result rows. */
class ScaleBenchTest {

  @Test
  void roundsAlternateTheOrderOfK() {
    int[] k = {1, 2, 4, 8, 16};
    assertThat(ScaleBench.roundOrder(k, 0)).containsExactly(1, 2, 4, 8, 16);
    assertThat(ScaleBench.roundOrder(k, 1)).containsExactly(16, 8, 4, 2, 1);
    assertThat(ScaleBench.roundOrder(k, 2)).containsExactly(1, 2, 4, 8, 16);
    assertThat(k).containsExactly(1, 2, 4, 8, 16);
  }

  @Test
  void theMedianSkipsUnknownValues() {
    assertThat(ScaleBench.median(DoubleStream.of(3, 1, 2))).isEqualTo(2);
    assertThat(ScaleBench.median(DoubleStream.of(4, 1, 2, 3))).isEqualTo(2.5);
    assertThat(ScaleBench.median(DoubleStream.of(Double.NaN, 5))).isEqualTo(5);
    assertThat(ScaleBench.median(DoubleStream.of(Double.NaN))).isNaN();
  }

  @Test
  void aFailedReadBackAndAFailedRunAreReportedAsRows() {
    LatencyRecorder latencies = new LatencyRecorder();
    latencies.record(1_000_000);
    Workloads.ContentionRun fine =
        new Workloads.ContentionRun(
            100, 1, latencies, 50, 0, 0, 100, 1000, 1000, 200_000_000L, 100_000_000L, null);
    Workloads.ContentionRun unreadable =
        new Workloads.ContentionRun(
            10, 1, latencies, 5, 0, 8, 10, -1, 100, -1, -1, "snapshot-61 does not exist");
    Workloads.ContentionRun crashed = Workloads.ContentionRun.failed("boom");
    List<ScaleBench.ContentionPoint> points =
        List.of(
            point("lockstep", 1, List.of(fine, fine)),
            point("paimon", 1, List.of(fine, unreadable)),
            point("paimon", 8, List.of(crashed)));

    String md = ScaleBench.section(points, List.of(), new int[] {1, 8}, "", 1);

    // 100 commits/s per round, 2 ms process CPU and 1 ms committer CPU per commit, 1.5 attempts.
    assertThat(md)
        .contains(
            "| lockstep | 1 | 2 | 100.0 | 100.0 .. 100.0 | 1.00x | 1.50 | 2.000 | 1.000 | 0 | ok |");
    assertThat(md)
        .contains(
            "| paimon | 1 | 2 | 55.0 | 10.0 .. 100.0 | 1.00x | 1.50 | 2.000 | 1.000 | 8 | failed: snapshot-61 does not exist |");
    assertThat(md)
        .contains(
            "| paimon | 8 | 1 | 0.0 | 0.0 .. 0.0 | 0.00x | NaN | NaN | NaN | 0 | failed: boom |");
  }

  private static ScaleBench.ContentionPoint point(
      String system, int k, List<Workloads.ContentionRun> runs) {
    return new ScaleBench.ContentionPoint(
        system, k, Workloads.Contention.pool(system, "append", k, runs), runs);
  }
}
