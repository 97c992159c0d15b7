package dev.lockstep.paimon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.paimon.testing.ConcurrentAppends;
import dev.lockstep.paimon.testing.ConcurrentAppends.ClassPath;
import dev.lockstep.paimon.testing.LockBackends;
import dev.lockstep.paimon.testing.PaimonTables;
import dev.lockstep.paimon.testing.S3Warehouse;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Condition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wrong configurations fail at the first table operation (Paimon looks the lock factory up lazily),
 * each with one line that says what to set.
 */
class ConfigurationErrorsTest {

  private static S3ProxyServer server;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  /** Some message in the cause chain is one line and contains every part. */
  private static Condition<Throwable> oneLineSaying(String... parts) {
    return new Condition<>(
        thrown -> {
          for (Throwable t = thrown; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null
                && !message.contains("\n")
                && List.of(parts).stream().allMatch(message::contains)) {
              return true;
            }
          }
          return false;
        },
        "a one-line message containing %s",
        List.of(parts));
  }

  private static Map<String, String> withLock(Map<String, String> lock) {
    Map<String, String> options =
        new HashMap<>(LockBackends.blindStore(S3Warehouse.options(server)));
    options.putAll(lock);
    return options;
  }

  /**
   * A misspelt {@code lock.type} on Lockstep's FileIO: one line, at catalog creation (Lockstep's
   * FileIO is configured then, before Paimon's own lookup at the first table operation would throw
   * its multi-line "Could not find any factory").
   */
  @Test
  void aMisspeltLockTypeOnLockstepsFileIoIsOneLineNamingTheIdentifiers() {
    Map<String, String> options = withLock(Map.of("lock.type", "lockstep-zk"));
    assertThatThrownBy(() -> PaimonTables.create(options, "db", "t"))
        .is(
            oneLineSaying(
                "'lock.type' = 'lockstep-zk'",
                "'lockstep-zookeeper'",
                "'lockstep-jdbc'",
                "'lockstep-hive'",
                "did you mean 'lockstep-zookeeper'?"));
  }

  /** The identifier of the bundles README before issue 24 ({@code 'lock.type' = 'zookeeper'}). */
  @Test
  void anUnprefixedZookeeperLockTypeIsToldTheLockstepIdentifier() {
    Map<String, String> options = withLock(Map.of("lock.type", "zookeeper"));
    assertThatThrownBy(() -> PaimonTables.create(options, "db", "t"))
        .is(oneLineSaying("'lock.type' = 'zookeeper'", "did you mean 'lockstep-zookeeper'?"));
  }

  /**
   * With {@code lock.enabled = false} Paimon ignores {@code lock.type}; so does the check (here on
   * a store with conditional writes, which needs no lock).
   */
  @Test
  void aDisabledLockIsNotChecked() throws Exception {
    Map<String, String> options = S3Warehouse.options(server);
    options.put("lock.enabled", "false");
    options.put("lock.type", "lockstep-zk");
    PaimonTables.create(options, "db", "t");
    assertThat(PaimonTables.latestSnapshotId(options, "db", "t")).isZero();
  }

  /**
   * On a FileIO that is not Lockstep's (here Paimon's local one, with the lock enabled by hand) no
   * Lockstep code runs for an identifier no factory claims: Paimon's own message (several lines),
   * raised at the first table operation, which lists the Lockstep identifiers. The README says so.
   */
  @Test
  void onAnotherFileIoAnUnknownLockTypeGetsPaimonsMessageListingTheLockstepIdentifiers(
      @TempDir java.nio.file.Path warehouse) {
    Map<String, String> options =
        Map.of(
            "warehouse",
            warehouse.toUri().toString(),
            "lock.enabled",
            "true",
            "lock.type",
            "lockstep-zk");
    assertThatThrownBy(() -> PaimonTables.create(options, "db", "t"))
        .hasStackTraceContaining("Could not find any factory for identifier 'lockstep-zk'")
        .hasStackTraceContaining("lockstep-zookeeper")
        .hasStackTraceContaining("lockstep-jdbc")
        .hasStackTraceContaining("lockstep-hive");
  }

  @Test
  void aMissingZookeeperConnectStringIsNamed() {
    Map<String, String> options = withLock(Map.of("lock.type", "lockstep-zookeeper"));
    assertThatThrownBy(() -> PaimonTables.create(options, "db", "t"))
        .is(oneLineSaying("lock.zookeeper.connect-string"));
  }

  @Test
  void aMissingJdbcUrlIsNamed() {
    Map<String, String> options = withLock(Map.of("lock.type", "lockstep-jdbc"));
    assertThatThrownBy(() -> PaimonTables.create(options, "db", "t"))
        .is(oneLineSaying("lock.jdbc.url"));
  }

  @Test
  void aMissingMetastoreUriIsNamed() {
    Map<String, String> options = withLock(Map.of("lock.type", "lockstep-hive"));
    assertThatThrownBy(() -> PaimonTables.create(options, "db", "t")).is(oneLineSaying("uri"));
  }

  @Test
  void anUnreachableZookeeperNamesTheAddressAndTheOption() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Map<String, String> lock = new HashMap<>(LockBackends.zookeeper("127.0.0.1:" + closedPort));
    lock.put("lock.zookeeper.connection-timeout", "1 s");
    lock.put("lock-acquire-timeout", "5 s");
    Map<String, String> options = withLock(lock);
    assertThatThrownBy(() -> PaimonTables.create(options, "db", "t"))
        .is(oneLineSaying("127.0.0.1:" + closedPort, "lock.zookeeper.connect-string"));
  }

  @Test
  void aBlindStoreWithoutALockRefusesToCommitAndNamesTheFix() {
    Map<String, String> options = LockBackends.blindStore(S3Warehouse.options(server));
    assertThatThrownBy(() -> PaimonTables.create(options, "db", "t"))
        .is(oneLineSaying("'lock.type' = 'lockstep-zookeeper'", "s3.conditional-writes"));
  }

  @Test
  void anS3OptionLockstepCannotHonourIsRefused() {
    Map<String, String> options = S3Warehouse.options(server);
    options.put("s3.aws.credentials.provider", "com.example.CustomProvider");
    assertThatThrownBy(() -> PaimonTables.create(options, "db", "t"))
        .is(oneLineSaying("s3.aws.credentials.provider", "default credential chain"));
  }

  /**
   * S3A's assumed-role keys as a {@code paimon-s3} user writes them, against fs-s3's STS-protocol
   * test server: a role STS refuses fails the first table operation in one line naming the option.
   * (That the role's credentials then sign every request is fs-s3's {@code S3AssumedRoleTest}.)
   */
  @Test
  void aRoleThatCannotBeAssumedFailsTheFirstTableOperationInOneLine() throws Exception {
    try (dev.lockstep.fs.s3.testing.StsTestServer sts =
        new dev.lockstep.fs.s3.testing.StsTestServer(
            S3ProxyServer.ACCESS_KEY,
            "arn:aws:iam::123456789012:role/paimon",
            null,
            new String[] {"temporary-key", "temporary-secret", "token"},
            java.time.Duration.ofHours(1))) {
      Map<String, String> options = S3Warehouse.options(server);
      options.put("s3.assumed.role.arn", "arn:aws:iam::123456789012:role/someone-elses");
      options.put("s3.assumed.role.sts.endpoint", sts.endpoint().toString());
      assertThatThrownBy(() -> PaimonTables.create(options, "db", "t"))
          .is(
              oneLineSaying(
                  "Cannot assume the role 'arn:aws:iam::123456789012:role/someone-elses'",
                  "'s3.assumed-role.arn' (AccessDenied: "));
      assertThat(sts.requests()).hasSize(1);
      assertThat(sts.requests().get(0).form())
          .containsEntry("RoleArn", "arn:aws:iam::123456789012:role/someone-elses");
    }
  }

  /**
   * This jar next to {@code paimon-s3}: Paimon refuses at the first s3 path, naming both classes.
   * The fix (take {@code paimon-s3} off the class path) is in the README.
   */
  @Test
  void besidePaimonS3PaimonRefusesTheSchemeTwice() throws Exception {
    List<String> arguments = new ArrayList<>(List.of("db", "t", "0", "1"));
    S3Warehouse.options(server).forEach((key, value) -> arguments.add(key + "=" + value));
    Process child =
        ConcurrentAppends.start(
            ClassPath.BOTH, dev.lockstep.paimon.testing.PaimonAppender.class.getName(), arguments);
    String output;
    try {
      output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(child.waitFor(2, TimeUnit.MINUTES)).isTrue();
    } finally {
      child.destroyForcibly();
    }
    assertThat(output)
        .contains("Multiple FileIO for scheme 's3' found in the classpath")
        .contains("org.apache.paimon.s3.S3Loader")
        .contains("dev.lockstep.paimon.fs.LockstepS3Loader")
        .doesNotContain("READY");
    System.out.println(
        "paimon-s3 beside lockstep-paimon: "
            + output.lines().filter(l -> l.contains("Multiple FileIO")).findFirst().orElse(""));
  }
}
