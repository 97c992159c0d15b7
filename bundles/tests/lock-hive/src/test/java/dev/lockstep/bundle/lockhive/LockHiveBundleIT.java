package dev.lockstep.bundle.lockhive;

import static dev.lockstep.bundle.testing.IsolatedClasspath.bundleJar;
import static dev.lockstep.bundle.testing.IsolatedClasspath.origin;
import static dev.lockstep.bundle.testing.IsolatedClasspath.requiredFile;
import static dev.lockstep.bundle.testing.IsolatedClasspath.runSmoke;
import static dev.lockstep.bundle.testing.IsolatedClasspath.workDirectory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.bundle.testing.BundleListing;
import dev.lockstep.bundle.testing.IsolatedClasspath;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lock-hive bundle: nothing third-party inside (the metastore client, Thrift and Hadoop are the
 * engine's), and locking on a real Hive Metastore from an isolated loader that holds the engine's
 * Hive and Hadoop jars and conflicting libraries. The metastore is lock-hive's {@link
 * TestMetastore} (its test-jar) in this JVM, with the server's default lock timeout, as the smoke's
 * lock client expects; nothing of it is visible to the isolated loader.
 */
class LockHiveBundleIT {

  private static TestMetastore metastore;

  @BeforeAll
  static void startMetastore() throws Exception {
    metastore = TestMetastore.start(workDirectory("metastore-" + System.nanoTime()));
  }

  @AfterAll
  static void stopMetastore() {
    if (metastore != null) {
      metastore.close();
    }
  }

  @Test
  void holdsOnlyLockstepClassesAndNoHive() throws Exception {
    BundleListing listing = BundleListing.of(bundleJar());
    listing.assertSelfContained(
        "dev.lockstep.lock.hive.HiveLockFactory",
        "dev.lockstep.lock.hive.HiveLockService",
        "dev.lockstep.commit.SnapshotCommitter");
    assertThat(listing.shadedPackages())
        .as("nothing to relocate: Hive and Hadoop are provided")
        .isEmpty();
    assertThat(listing.entries()).noneMatch(name -> name.startsWith("org/apache/"));
    assertThat(listing.resourcesOutside()).isEmpty();
    assertThat(listing.services().get("dev.lockstep.lock.CatalogLockFactory"))
        .containsExactly("dev.lockstep.lock.hive.HiveLockFactory");
    // An Apache Paimon plugin too: only this backend's, with lockstep-paimon's classes unchanged.
    listing.assertPaimonPlugins(
        requiredFile("lockstep.paimon.jar"),
        "org.apache.paimon.factories.Factory",
        "dev.lockstep.paimon.lock.LockstepHiveLockFactory");
    listing.assertLicensesListed();
  }

  @Test
  void locksAndCommitsThroughTheEnginesMetastoreClient() throws Exception {
    Path table = workDirectory("smoke").resolve("t" + System.nanoTime());
    // The engine's own Hive and Hadoop come first (they need their own Guava, Jackson, ...); the
    // conflicting libraries follow, then the engine's SLF4J, the bundle and the smoke.
    IsolatedClasspath classpath =
        new IsolatedClasspath()
            .classpathFile("lockstep.bundle.hive-classpath")
            .conflicts()
            .slf4j()
            .add(bundleJar())
            .smoke();
    long locksBefore = metastore.nextLockId();
    try (URLClassLoader engine = classpath.newLoader("engine")) {
      assertThat(origin(engine, "org.apache.hadoop.hive.metastore.HiveMetaStoreClient"))
          .contains("hive-standalone-metastore-common");
      assertThat(origin(engine, "com.google.common.base.Preconditions")).contains("guava-22.0");
      assertThat(origin(engine, "com.mysql.jdbc.Driver")).contains("mysql-connector-java-5.1.49");
      // The test metastore (lock-hive's test-jar) stays in the test JVM, out of the engine's reach.
      assertThatThrownBy(() -> engine.loadClass(TestMetastore.class.getName()))
          .isInstanceOf(ClassNotFoundException.class);

      Map<String, String> summary =
          runSmoke(
              engine,
              Map.of(
                  "lock.enabled", "true",
                  "lock.type", "hive",
                  "uri", metastore.uri()),
              table.toUri().toString());

      assertThat(summary.get("lockTypes")).isEqualTo("[hive]");
      assertThat(summary.get("strategy")).startsWith("lock");
      assertThat(summary.get("snapshots")).isEqualTo("[1, 2, 3, 4, 5]");
      assertThat(summary.get("conflict")).isEqualTo("CONFLICT");
    }
    assertThat(table.resolve("snapshot").resolve("snapshot-5")).isRegularFile();
    // The locks were granted by this metastore: one per commit at least.
    assertThat(metastore.nextLockId() - locksBefore).isGreaterThanOrEqualTo(5);
  }
}
