package dev.lockstep.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.bench.Workloads.Ingest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RatiosTest {

  @Test
  void ratiosAreOrientedSoThatAboveOneIsBetterForLockstep() {
    Ratios r =
        Ratios.of(
            "now",
            List.of(
                LatencyPlotTest.contention("lockstep", 8, 10),
                LatencyPlotTest.contention("paimon", 8, 40)),
            List.of(
                new Ingest("lockstep", 100, 10, 1, 300, 1, 200, 100),
                new Ingest("paimon", 100, 10, 1, 100, 1, 400, 100)));

    assertThat(r.values())
        .containsEntry("append K=8 commits/s", 1.0)
        .containsEntry("append K=8 p99", 4.0)
        .containsEntry("ingest rows/s", 3.0)
        .containsEntry("scan rows/s", 0.5);
  }

  @Test
  void survivesTheCsvAndMarksChangesAboveThirtyPercent(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ratios.csv");
    new Ratios("2026-11-30T06:00Z", Map.of("append K=8 p99", 4.0, "ingest rows/s", 1.0))
        .write(file);
    Ratios previous = Ratios.read(file);
    assertThat(previous.measured()).isEqualTo("2026-11-30T06:00Z");
    assertThat(previous.values()).containsEntry("append K=8 p99", 4.0);

    String md =
        new Ratios("later", Map.of("append K=8 p99", 2.0, "ingest rows/s", 1.1))
            .compareWith(previous);
    assertThat(md)
        .contains("| append K=8 p99 | 4.00x | 2.00x | **-50%** |")
        .contains("| ingest rows/s | 1.00x | 1.10x | +10% |")
        .contains("1 of 2 ratios within 30% of the previous run");
    assertThat(Files.readString(file)).startsWith("# 2026-11-30T06:00Z\n");
  }
}
