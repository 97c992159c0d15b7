package dev.lockstep.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class JmhReportTest {

  private static final String JSON =
      """
      [ {
        "benchmark" : "dev.lockstep.bench.jmh.LockBenchmark.acquireAndRelease",
        "mode" : "avgt", "threads" : 1, "forks" : 1,
        "warmupIterations" : 2, "warmupTime" : "2 s",
        "measurementIterations" : 3, "measurementTime" : "2 s",
        "params" : { "backend" : "zookeeper" },
        "primaryMetric" : { "score" : 1234.5678, "scoreError" : 56.25, "scoreUnit" : "us/op",
          "rawData" : [ [ 1200.0, 1234.5678, 1269.1356 ] ] }
      }, {
        "benchmark" : "dev.lockstep.bench.jmh.S3ConditionalCreateBenchmark.create",
        "mode" : "avgt", "threads" : 1, "forks" : 1,
        "warmupIterations" : 2, "warmupTime" : "2 s",
        "measurementIterations" : 1, "measurementTime" : "2 s",
        "primaryMetric" : { "score" : 12.5, "scoreError" : "NaN", "scoreUnit" : "us/op" }
      } ]
      """;

  @Test
  void writesOneRowPerBenchmarkWithScoreErrorUnitAndSettings() throws Exception {
    String md = JmhReport.markdown(new ObjectMapper().readTree(JSON), "java ... jmh.Main");

    assertThat(md)
        .contains("## 4. Microbenchmarks")
        .contains("java ... jmh.Main")
        .contains(
            "| LockBenchmark.acquireAndRelease | backend=zookeeper | 1,235 | ± 56.25 |"
                + " 1,200 .. 1,269 | us/op | 1 x 3 (warm-up 2 x 2 s, measured 2 s each) |")
        .contains("| S3ConditionalCreateBenchmark.create | - | 12.50 | - | - | us/op |");
  }

  @Test
  void saysSoWhenJmhWroteNoResults() throws Exception {
    assertThat(JmhReport.markdown(new ObjectMapper().readTree("[]"), null))
        .contains("**JMH wrote no results");
  }
}
