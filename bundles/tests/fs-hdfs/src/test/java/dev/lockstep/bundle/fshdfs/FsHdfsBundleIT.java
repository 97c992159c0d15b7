package dev.lockstep.bundle.fshdfs;

import static dev.lockstep.bundle.testing.IsolatedClasspath.bundleJar;
import static dev.lockstep.bundle.testing.IsolatedClasspath.origin;
import static dev.lockstep.bundle.testing.IsolatedClasspath.requiredFile;
import static dev.lockstep.bundle.testing.IsolatedClasspath.runSmoke;
import static dev.lockstep.bundle.testing.IsolatedClasspath.workDirectory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.bundle.testing.BundleListing;
import dev.lockstep.bundle.testing.IsolatedClasspath;
import java.net.URLClassLoader;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fs-hdfs bundle: nothing third-party inside (Hadoop is the engine's), and committing under a
 * ZooKeeper lock (the ZooKeeper bundle in the same loader) to a MiniDFSCluster through the engine's
 * Hadoop client, with conflicting libraries on the class path.
 */
class FsHdfsBundleIT {

  private static TestingServer zooKeeper;
  private static MiniDFSCluster hdfs;

  @BeforeAll
  static void startServers() throws Exception {
    zooKeeper = new TestingServer(true);
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, workDirectory("minidfs").toString());
    hdfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    hdfs.waitActive();
  }

  @AfterAll
  static void stopServers() throws Exception {
    if (hdfs != null) {
      hdfs.shutdown();
    }
    if (zooKeeper != null) {
      zooKeeper.close();
    }
  }

  @Test
  void holdsOnlyLockstepClassesAndNoHadoop() throws Exception {
    BundleListing listing = BundleListing.of(bundleJar());
    listing.assertSelfContained(
        "dev.lockstep.fs.hdfs.HadoopFileIOLoader",
        "dev.lockstep.fs.hdfs.HdfsFileIO",
        "dev.lockstep.commit.SnapshotCommitter");
    assertThat(listing.shadedPackages()).as("nothing to relocate: Hadoop is provided").isEmpty();
    assertThat(listing.entries()).noneMatch(name -> name.startsWith("org/apache/hadoop/"));
    assertThat(listing.resourcesOutside()).isEmpty();
    assertThat(listing.services().get("dev.lockstep.fs.FileIOLoader"))
        .contains("dev.lockstep.fs.hdfs.HadoopFileIOLoader");
    listing.assertLicensesListed();
  }

  @Test
  void commitsUnderAZooKeeperLockThroughTheEnginesHadoop() throws Exception {
    String table = "/warehouse/db.db/t" + System.nanoTime();
    IsolatedClasspath classpath =
        new IsolatedClasspath()
            .conflicts()
            .add(requiredFile("lockstep.bundle.hadoop-client-api"))
            .add(requiredFile("lockstep.bundle.hadoop-client-runtime"))
            .slf4j()
            .add(bundleJar())
            .add(requiredFile("lockstep.bundle.zookeeper"))
            .smoke();
    try (URLClassLoader engine = classpath.newLoader("engine")) {
      assertThat(origin(engine, "org.apache.hadoop.fs.FileSystem")).contains("hadoop-client-api");
      assertThat(origin(engine, "com.google.common.base.Preconditions")).contains("guava-14.0.1");

      Map<String, String> summary =
          runSmoke(
              engine,
              Map.of(
                  "lock.enabled", "true",
                  "lock.type", "zookeeper",
                  "lock.zookeeper.connect-string", zooKeeper.getConnectString()),
              "hdfs://localhost:" + hdfs.getNameNodePort() + table);

      assertThat(summary.get("schemes")).contains("hdfs", "viewfs", "file");
      assertThat(summary.get("lockTypes")).isEqualTo("[zookeeper]");
      assertThat(summary.get("store")).isEqualTo("dev.lockstep.fs.hdfs.HdfsFileIO");
      assertThat(summary.get("strategy")).isEqualTo("lock + rename");
      assertThat(summary.get("snapshots")).isEqualTo("[1, 2, 3, 4, 5]");
      assertThat(summary.get("conflict")).isEqualTo("CONFLICT");
    }
    FileSystem fs = hdfs.getFileSystem();
    for (int id = 1; id <= 5; id++) {
      assertThat(fs.exists(new org.apache.hadoop.fs.Path(table + "/snapshot/snapshot-" + id)))
          .as("snapshot-%s on HDFS", id)
          .isTrue();
    }
  }
}
