package dev.lockstep.bundle.lockjdbc;

import static dev.lockstep.bundle.testing.IsolatedClasspath.bundleJar;
import static dev.lockstep.bundle.testing.IsolatedClasspath.origin;
import static dev.lockstep.bundle.testing.IsolatedClasspath.requiredFile;
import static dev.lockstep.bundle.testing.IsolatedClasspath.runSmoke;
import static dev.lockstep.bundle.testing.IsolatedClasspath.workDirectory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.bundle.testing.BundleListing;
import dev.lockstep.bundle.testing.IsolatedClasspath;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The lock-jdbc bundle: self-contained, and locking on the machine's MariaDB and PostgreSQL through
 * each relocated driver, next to MySQL Connector/J 5.1 and HikariCP 2.4 on the same class path.
 */
class LockJdbcBundleIT {

  @Test
  void everyThirdPartyClassIsRelocatedUnderDevLockstepShaded() throws Exception {
    BundleListing listing = BundleListing.of(bundleJar());
    listing.assertShadedOnlyUnder("dev/lockstep/shaded/jdbc/");
    listing.assertSelfContained(
        "dev.lockstep.lock.jdbc.JdbcCatalogLockFactory",
        "dev.lockstep.shaded.jdbc.com.zaxxer.hikari.HikariDataSource",
        "dev.lockstep.shaded.jdbc.com.mysql.cj.jdbc.Driver",
        "dev.lockstep.shaded.jdbc.org.mariadb.jdbc.Driver",
        "dev.lockstep.shaded.jdbc.org.postgresql.Driver",
        "dev.lockstep.shaded.jdbc.com.google.protobuf.Message");
    // The drivers' java.sql.Driver registrations survive, naming the relocated classes.
    assertThat(listing.services().get("java.sql.Driver"))
        .containsExactlyInAnyOrder(
            "dev.lockstep.shaded.jdbc.com.mysql.cj.jdbc.Driver",
            "dev.lockstep.shaded.jdbc.org.mariadb.jdbc.Driver",
            "dev.lockstep.shaded.jdbc.org.postgresql.Driver");
    // MariaDB's plugins are found by ServiceLoader under their relocated interface names.
    assertThat(listing.services())
        .containsKeys(
            "dev.lockstep.shaded.jdbc.org.mariadb.jdbc.plugin.AuthenticationPluginFactory",
            "dev.lockstep.shaded.jdbc.org.mariadb.jdbc.plugin.Codec");
    // The MariaDB driver reads these by name from the class path root (documented in README).
    assertThat(listing.resourcesOutside())
        .containsExactlyInAnyOrder(
            "deprecated.properties", "driver.properties", "mariadb.properties");
    // (MySQL Connector/J and the PostgreSQL driver ship no META-INF/maven entry of their own.)
    assertThat(listing.bundledArtifacts())
        .contains("com.zaxxer:HikariCP", "org.mariadb.jdbc:mariadb-java-client")
        .noneMatch(artifact -> artifact.startsWith("org.slf4j:") || artifact.contains("jna"));
    // An Apache Paimon plugin too: only this backend's, with lockstep-paimon's classes unchanged.
    listing.assertPaimonPlugins(
        requiredFile("lockstep.paimon.jar"),
        "org.apache.paimon.factories.Factory",
        "dev.lockstep.paimon.lock.LockstepJdbcLockFactory");
    listing.assertLicensesListed();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "jdbc:mariadb://127.0.0.1:3306/test, root",
    "jdbc:mysql://127.0.0.1:3306/test, root",
    "jdbc:postgresql://127.0.0.1:5432/test, postgres"
  })
  void locksAndCommitsInAnIsolatedLoaderNextToAnOldDriverAndPool(String url, String user)
      throws Exception {
    Path table = workDirectory("smoke").resolve("t" + System.nanoTime());
    IsolatedClasspath classpath =
        new IsolatedClasspath().conflicts().slf4j().add(bundleJar()).smoke();
    try (URLClassLoader engine = classpath.newLoader("engine")) {
      assertThat(origin(engine, "com.mysql.jdbc.Driver")).contains("mysql-connector-java-5.1.49");
      assertThat(origin(engine, "com.zaxxer.hikari.HikariDataSource")).contains("HikariCP-java7");
      assertThat(origin(engine, "com.google.protobuf.Message")).contains("protobuf-java-2.5.0");

      Map<String, String> summary =
          runSmoke(
              engine,
              Map.of(
                  "lock.enabled", "true",
                  "lock.type", "jdbc",
                  "lock.jdbc.url", url,
                  "lock.jdbc.user", user,
                  "lock.jdbc.table", "lockstep_bundle_locks"),
              table.toUri().toString());

      assertThat(summary.get("lockTypes")).isEqualTo("[jdbc]");
      assertThat(summary.get("strategy")).startsWith("lock");
      assertThat(summary.get("snapshots")).isEqualTo("[1, 2, 3, 4, 5]");
      assertThat(summary.get("conflict")).isEqualTo("CONFLICT");
    }
    assertThat(table.resolve("snapshot").resolve("snapshot-5")).isRegularFile();
    // The lock really went through this database: the key's row is there, released, and its
    // fencing token counted every acquisition (one per commit at least).
    // The test's own drivers, used directly: DriverManager registered the drivers of whichever
    // context class loader first touched it (the isolated one), which the test cannot see.
    Driver driver =
        url.startsWith("jdbc:postgresql:")
            ? new org.postgresql.Driver()
            : new org.mariadb.jdbc.Driver();
    Properties credentials = new Properties();
    credentials.setProperty("user", user);
    try (Connection connection =
            driver.connect(url.replace("jdbc:mysql:", "jdbc:mariadb:"), credentials);
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT owner_id, fencing_token FROM lockstep_bundle_locks WHERE lock_key = ?")) {
      query.setString(1, "bundle_smoke." + table.getFileName());
      try (ResultSet row = query.executeQuery()) {
        assertThat(row.next()).as("lock row of %s", table.getFileName()).isTrue();
        assertThat(row.getObject(1)).as("owner after release").isNull();
        assertThat(row.getLong(2)).isGreaterThanOrEqualTo(5L);
      }
    }
  }
}
