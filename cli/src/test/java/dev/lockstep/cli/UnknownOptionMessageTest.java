package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.jdbc.JdbcCatalogLockFactory;
import dev.lockstep.lock.zookeeper.ZooKeeperLockFactory;
import dev.lockstep.options.UnknownOptionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A misspelt option gets one message wherever it is caught: the command line prints exactly what
 * the ZooKeeper and JDBC lock factories, the S3 store and the embedded engine throw when they are
 * created directly from Java with the same key.
 */
class UnknownOptionMessageTest {

  @TempDir Path warehouse;

  private String cliError(String option) throws Exception {
    CliRun run = CliRun.of("stress", "--warehouse", warehouse.toString(), "-o", option);
    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    try (var files = Files.list(warehouse)) {
      assertThat(files).as("nothing written").isEmpty();
    }
    String line = run.err().strip();
    assertThat(line).startsWith("lockstep: ").doesNotContain("\n");
    return line.substring("lockstep: ".length());
  }

  private static String thrown(ThrowingRunnable r) {
    try {
      r.run();
    } catch (UnknownOptionException e) {
      return e.getMessage();
    } catch (Exception e) {
      throw new AssertionError("expected an UnknownOptionException", e);
    }
    throw new AssertionError("expected an UnknownOptionException, nothing was thrown");
  }

  @Test
  void zooKeeper() throws Exception {
    String direct =
        thrown(
            () ->
                new ZooKeeperLockFactory()
                    .create(
                        Map.of(
                            "lock.zookeeper.connect-string",
                            "127.0.0.1:1",
                            "lock.zookeeper.sesion-timeout",
                            "5 s")));
    assertThat(direct).contains("Did you mean 'lock.zookeeper.session-timeout'?");
    assertThat(cliError("lock.zookeeper.sesion-timeout=5 s")).isEqualTo(direct);
  }

  @Test
  void jdbc() throws Exception {
    String direct =
        thrown(
            () ->
                new JdbcCatalogLockFactory()
                    .create(
                        Map.of(
                            "lock.jdbc.url",
                            "jdbc:mariadb://127.0.0.1:3306/test",
                            "lock.jdbc.lease-tll",
                            "5 s")));
    assertThat(direct).contains("Did you mean 'lock.jdbc.lease-ttl'?");
    assertThat(cliError("lock.jdbc.lease-tll=5 s")).isEqualTo(direct);
  }

  @Test
  void s3() throws Exception {
    String direct =
        thrown(
            () ->
                FileIODiscovery.open(
                    dev.lockstep.fs.Path.of("s3://bucket/w"),
                    Map.of("s3.endpoint", "http://127.0.0.1:1", "s3.acess-key", "k")));
    assertThat(direct).contains("Did you mean 's3.access-key'?");
    assertThat(cliError("s3.acess-key=k")).isEqualTo(direct);
  }

  @Test
  void embeddedEngine() throws Exception {
    String direct =
        thrown(
            () ->
                new FileSystemCatalog(
                    new LocalFileIO(),
                    dev.lockstep.fs.Path.of(warehouse.toUri().toString()),
                    Map.of("write-onyl", "true")));
    assertThat(direct).contains("Did you mean 'write-only'?");
    assertThat(cliError("write-onyl=true")).isEqualTo(direct);
  }

  @Test
  void aKeyNoComponentClaims() throws Exception {
    String direct =
        thrown(
            () ->
                new FileSystemCatalog(
                    new LocalFileIO(),
                    dev.lockstep.fs.Path.of(warehouse.toUri().toString()),
                    Map.of("lock.enable", "true")));
    assertThat(direct).startsWith("Unknown option 'lock.enable'. Did you mean 'lock.enabled'?");
    assertThat(cliError("lock.enable=true")).isEqualTo(direct);
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
