package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lockstep conformance} against the local store, with no code. */
class ConformanceCommandTest {

  @TempDir Path dir;

  @Test
  void theLocalStoreConformsAndTheReportsAreWritten() throws Exception {
    Path report = dir.resolve("report");
    CliRun run =
        CliRun.of(
            "conformance",
            "--store",
            dir.resolve("store").toString(),
            "--report",
            report.toString(),
            "--json",
            "-o",
            "conformance.rounds=5",
            "-o",
            "conformance.large-object-size=1048576");
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out())
        .contains("\"passed\":true")
        .contains("\"failed\":0")
        .contains("\"atomic_create\":{\"declared\":true,\"observed\":\"HOLDS\"}");
    assertThat(Files.readString(report.resolve("conformance-report.html"))).contains("<table");
    assertThat(report.resolve("TEST-lockstep-conformance.xml")).exists();
  }

  @Test
  void aMissingStoreIsABadInputWithTheFix() {
    CliRun run = CliRun.of("conformance");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--store").contains("--properties");
  }
}
