package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner as a vendor uses it, without code: {@code --properties vendor.properties --report
 * out/}. The store is the local one, found through {@code FileIODiscovery} from the URI; the lock
 * is the cross-process test lock found through {@code LockServiceDiscovery} from {@code lock.type}.
 */
class ConformanceRunnerCliTest {

  @TempDir Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return ConformanceRunner.runCli(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private Path properties(String capabilities) throws Exception {
    Path file = dir.resolve("vendor.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "# a vendor's conformance target",
            "uri=file://" + dir.resolve("store").toAbsolutePath(),
            capabilities,
            "lock.type=test-os-file",
            OsFileLockFactory.DIRECTORY + "=" + dir.resolve("locks").toAbsolutePath(),
            "lock.test-os-file.password=hunter2",
            "conformance.rounds=8",
            "conformance.contenders=4",
            "conformance.commits-per-committer=6",
            "conformance.lock-increments=10",
            ""),
        StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void vendorRunsTheKitFromAPropertiesFileAndGetsReports() throws Exception {
    Path props =
        properties(
            String.join(
                "\n",
                "capabilities.store-basics=true",
                "capabilities.atomic-create=true",
                "capabilities.atomic-rename=true",
                "capabilities.lock=true"));
    Path report = dir.resolve("out");
    int code = run("--properties", props.toString(), "--report", report.toString());
    String console = out.toString(StandardCharsets.UTF_8);
    System.out.println(console);
    assertThat(code).as(console + err).isZero();
    assertThat(console).contains("Lockstep conformance: PASSED", "38 passed, 0 failed, 0 skipped");
    assertThat(console).as("secrets are never printed").doesNotContain("hunter2");
    ConformanceRunnerTest.assertJUnitXmlIsValid(
        report.resolve(ConformanceRunner.XML_REPORT), 38, 0, 0);
    ConformanceRunnerTest.assertHtmlIsStandaloneWithMatrix(
        report.resolve(ConformanceRunner.HTML_REPORT),
        java.util.List.of("present", "present", "present", "present"));
    assertThat(
            Files.readString(report.resolve(ConformanceRunner.HTML_REPORT))
                + Files.readString(report.resolve(ConformanceRunner.XML_REPORT)))
        .doesNotContain("hunter2");
  }

  @Test
  void undeclaredCapabilityExitsOne() throws Exception {
    Path props = properties("capabilities.store-basics=true");
    assertThat(run("--properties", props.toString())).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("FAILED", "capabilities.atomic-create=true|false");
  }

  @Test
  void badInputExitsTwoNamingTheProblem() throws Exception {
    assertThat(run("--properties", dir.resolve("missing.properties").toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("does not exist");
    Path props = properties("capabilities.lock=maybe");
    err.reset();
    assertThat(run("--properties", props.toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("capabilities.lock", "true or false");
    err.reset();
    assertThat(run("--report")).isEqualTo(2);
    assertThat(run()).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--properties is required");
  }
}
