package dev.lockstep.bundle.lockzookeeper;

import static dev.lockstep.bundle.testing.IsolatedClasspath.bundleJar;
import static dev.lockstep.bundle.testing.IsolatedClasspath.origin;
import static dev.lockstep.bundle.testing.IsolatedClasspath.requiredFile;
import static dev.lockstep.bundle.testing.IsolatedClasspath.runSmoke;
import static dev.lockstep.bundle.testing.IsolatedClasspath.workDirectory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.bundle.testing.BundleListing;
import dev.lockstep.bundle.testing.IsolatedClasspath;
import dev.lockstep.testing.TestTiming;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lock-zookeeper bundle: self-contained, and locking on a real ZooKeeper next to Curator 2. */
class LockZooKeeperBundleIT {

  private static TestingServer zooKeeper;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    zooKeeper = new TestingServer(true);
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    if (zooKeeper != null) {
      zooKeeper.close();
    }
  }

  @Test
  void everyThirdPartyClassIsRelocatedUnderDevLockstepShaded() throws Exception {
    BundleListing listing = BundleListing.of(bundleJar());
    listing.assertShadedOnlyUnder("dev/lockstep/shaded/zookeeper/");
    listing.assertSelfContained(
        "dev.lockstep.lock.zookeeper.ZooKeeperLockFactory",
        "dev.lockstep.commit.SnapshotCommitter",
        "dev.lockstep.shaded.zookeeper.org.apache.curator.framework.CuratorFramework",
        "dev.lockstep.shaded.zookeeper.org.apache.zookeeper.ZooKeeper",
        "dev.lockstep.shaded.zookeeper.org.apache.zookeeper.ClientCnxnSocketNIO",
        "dev.lockstep.shaded.zookeeper.org.apache.jute.Record",
        "dev.lockstep.shaded.zookeeper.com.google.common.base.Preconditions",
        "dev.lockstep.shaded.zookeeper.io.netty.buffer.ByteBuf");
    assertThat(listing.services())
        .containsEntry(
            "dev.lockstep.lock.CatalogLockFactory",
            java.util.List.of("dev.lockstep.lock.zookeeper.ZooKeeperLockFactory"));
    assertThat(listing.bundledArtifacts())
        .as("Netty epoll/tcnative are left out")
        .noneMatch(artifact -> artifact.contains("epoll") || artifact.contains("tcnative"));
    assertThat(listing.resourcesOutside())
        .as("resources outside META-INF/ and dev/lockstep/")
        .isEmpty();
    assertThat(listing.bundledArtifacts())
        .contains(
            "org.apache.curator:curator-framework",
            "org.apache.zookeeper:zookeeper",
            "com.google.guava:guava")
        .noneMatch(artifact -> artifact.startsWith("org.slf4j:"));
    assertThat(listing.licensedArtifacts()).contains("curator-framework", "guava");
    // JCTools comes inside netty-common (relocated by Netty itself), under Netty's license.
    // An Apache Paimon plugin too: only this backend's, with lockstep-paimon's classes unchanged.
    listing.assertPaimonPlugins(
        requiredFile("lockstep.paimon.jar"),
        "org.apache.paimon.factories.Factory",
        "dev.lockstep.paimon.lock.LockstepZooKeeperLockFactory");
    listing.assertLicensesListed("org.jctools:jctools-core");
  }

  @Test
  void locksAndCommitsInAnIsolatedLoaderNextToCurator2AndOldGuava() throws Exception {
    Path table = workDirectory("smoke").resolve("t" + System.nanoTime());
    IsolatedClasspath classpath =
        new IsolatedClasspath().conflicts().slf4j().add(bundleJar()).smoke();
    try (URLClassLoader engine = classpath.newLoader("engine")) {
      assertThat(origin(engine, "com.google.common.base.Preconditions")).contains("guava-14.0.1");
      assertThat(origin(engine, "org.apache.curator.framework.CuratorFramework"))
          .contains("curator-framework-2.13.0");
      assertThat(origin(engine, "org.apache.zookeeper.ZooKeeper")).contains("zookeeper-3.4.14");

      Map<String, String> summary =
          runSmoke(
              engine,
              Map.of(
                  "lock.enabled", "true",
                  "lock.type", "zookeeper",
                  "lock.zookeeper.connect-string", zooKeeper.getConnectString()),
              table.toUri().toString());

      assertThat(summary.get("lockTypes")).isEqualTo("[zookeeper]");
      assertThat(summary.get("strategy")).startsWith("lock");
      assertThat(summary.get("snapshots")).isEqualTo("[1, 2, 3, 4, 5]");
      assertThat(summary.get("conflict")).isEqualTo("CONFLICT");
    }
    assertThat(table.resolve("snapshot").resolve("snapshot-5")).isRegularFile();
    // The lock really went through this ZooKeeper: the table's lock node (an empty container
    // until the server's container sweep) is there.
    ZooKeeper client =
        new ZooKeeper(
            zooKeeper.getConnectString(), (int) TestTiming.seconds(10).toMillis(), event -> {});
    try {
      assertThat(client.getChildren("/lockstep/locks", false))
          .contains("bundle_smoke." + table.getFileName());
    } finally {
      client.close();
    }
    assertThat(Files.list(table.resolve("snapshot")).count()).isGreaterThanOrEqualTo(5);
  }

  /**
   * The control: the same lock unshaded (the backend's own run-time class path: lock-zookeeper,
   * Curator 5.7.1, ZooKeeper 3.9.2, Guava 32) behind the same conflicting libraries does not work.
   * So the smoke above passes because of the relocation, not by luck.
   */
  @Test
  void theUnshadedLockFailsNextToTheSameConflictingLibraries() throws Exception {
    IsolatedClasspath classpath =
        new IsolatedClasspath()
            .conflicts()
            .slf4j()
            .classpathFile("lockstep.bundle.unshaded-classpath")
            .smoke();
    Path table = workDirectory("control").resolve("t" + System.nanoTime());
    try (URLClassLoader engine = classpath.newLoader("engine-unshaded")) {
      assertThat(origin(engine, "org.apache.curator.framework.CuratorFramework"))
          .contains("curator-framework-2.13.0");
      // Curator 2.13's builder wins and lacks what Curator 5 code calls.
      assertThatThrownBy(
              () ->
                  runSmoke(
                      engine,
                      Map.of(
                          "lock.enabled", "true",
                          "lock.type", "zookeeper",
                          "lock.zookeeper.connect-string", zooKeeper.getConnectString()),
                      table.toUri().toString()))
          .as("the unshaded lock next to Curator 2.13 / ZooKeeper 3.4.14")
          .isInstanceOf(LinkageError.class)
          .hasMessageContaining("org.apache.curator");
    }
  }
}
