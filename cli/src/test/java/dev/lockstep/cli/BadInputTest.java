package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input as a new user types it: one line on standard error naming the option or file and the
 * fix, a non-zero exit code, and nothing written.
 */
class BadInputTest {

  @TempDir Path warehouse;

  private static void assertOneLine(CliRun run, int exitCode, String... mentions) {
    assertThat(run.exitCode()).as(run.err()).isEqualTo(exitCode);
    assertThat(run.err().strip())
        .startsWith("lockstep: ")
        .doesNotContain("\n")
        .doesNotContain("\tat ");
    for (String mention : mentions) {
      assertThat(run.err()).contains(mention);
    }
  }

  private void assertNothingWritten() throws Exception {
    try (var files = Files.list(warehouse)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void anUnknownOptionKeyNamesTheNearestKnownKey() throws Exception {
    CliRun run = CliRun.of("stress", "--warehouse", warehouse.toString(), "-o", "lock.enable=true");
    assertOneLine(run, 2, "'lock.enable'", "'lock.enabled'");
    assertNothingWritten();
  }

  @Test
  void anUnknownLockTypeListsTheTypesFound() throws Exception {
    CliRun run =
        CliRun.of(
            "stress",
            "--warehouse",
            warehouse.toString(),
            "-o",
            "lock.enabled=true",
            "-o",
            "lock.type=zk");
    assertOneLine(run, 2, "'zk'", "zookeeper", "jdbc", "hive");
    assertNothingWritten();
  }

  @Test
  void anUnreachableLockServerNamesTheConnectString() throws Exception {
    CliRun run =
        CliRun.of(
            "stress",
            "--warehouse",
            warehouse.toString(),
            "-o",
            "lock.enabled=true",
            "-o",
            "lock.type=zookeeper",
            "-o",
            "lock.zookeeper.connect-string=127.0.0.1:1",
            "-o",
            "lock-acquire-timeout=2 s",
            "-o",
            "lock.zookeeper.connection-timeout=1 s");
    assertOneLine(run, 3, "127.0.0.1:1");
    assertNothingWritten();
  }

  @Test
  void anUnknownSchemeListsTheSchemesFound() throws Exception {
    CliRun run = CliRun.of("stress", "--warehouse", "gs://bucket/warehouse");
    assertOneLine(run, 2, "'gs'", "s3", "oss", "hdfs", "file");
  }

  @Test
  void aBadValueNamesTheOptionAndTheFix() throws Exception {
    CliRun run =
        CliRun.of(
            "stress",
            "--warehouse",
            warehouse.toString(),
            "-o",
            "lock-acquire-timeout=soon",
            "-o",
            "lock.enabled=true",
            "-o",
            "lock.type=jdbc");
    assertOneLine(run, 2, "lock-acquire-timeout", "30 s");
    assertNothingWritten();
  }

  @Test
  void anUnknownCompactionModeIsRefused() {
    assertOneLine(CliRun.of("stress", "--compaction", "sometimes"), 2, "inline, dedicated or off");
  }

  @Test
  void anUnknownSubcommandOrFlagIsRefusedWithHelp() {
    assertOneLine(CliRun.of("stres"), 2, "lockstep --help");
    assertOneLine(CliRun.of("stress", "--writerz", "2"), 2, "--writerz");
  }
}
