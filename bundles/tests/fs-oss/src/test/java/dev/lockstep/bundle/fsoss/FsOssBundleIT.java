package dev.lockstep.bundle.fsoss;

import static dev.lockstep.bundle.testing.IsolatedClasspath.bundleJar;
import static dev.lockstep.bundle.testing.IsolatedClasspath.origin;
import static dev.lockstep.bundle.testing.IsolatedClasspath.requiredFile;
import static dev.lockstep.bundle.testing.IsolatedClasspath.runSmoke;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.bundle.testing.BundleListing;
import dev.lockstep.bundle.testing.IsolatedClasspath;
import dev.lockstep.fs.oss.testing.OssTestServer;
import java.net.URLClassLoader;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fs-oss bundle: self-contained, and committing under a ZooKeeper lock (the ZooKeeper bundle in
 * the same loader) to an OSS-protocol server, next to HttpClient 4.3 and Gson 2.2 on the class
 * path.
 */
class FsOssBundleIT {

  private static final String BUCKET = "lockstep-bundle";

  private static TestingServer zooKeeper;
  private static OssTestServer oss;

  @BeforeAll
  static void startServers() throws Exception {
    zooKeeper = new TestingServer(true);
    oss = OssTestServer.start();
    oss.createBucket(BUCKET);
  }

  @AfterAll
  static void stopServers() throws Exception {
    if (oss != null) {
      oss.close();
    }
    if (zooKeeper != null) {
      zooKeeper.close();
    }
  }

  @Test
  void everyThirdPartyClassIsRelocatedUnderDevLockstepShaded() throws Exception {
    BundleListing listing = BundleListing.of(bundleJar());
    listing.assertShadedOnlyUnder("dev/lockstep/shaded/oss/");
    listing.assertSelfContained(
        "dev.lockstep.fs.oss.OssFileIOLoader",
        "dev.lockstep.shaded.oss.com.aliyun.oss.OSSClient",
        "dev.lockstep.shaded.oss.com.aliyuncs.DefaultAcsClient",
        "dev.lockstep.shaded.oss.org.apache.http.impl.client.CloseableHttpClient",
        "dev.lockstep.shaded.oss.org.jdom2.Document",
        "dev.lockstep.shaded.oss.com.google.gson.Gson",
        "dev.lockstep.shaded.oss.org.apache.commons.logging.impl.SLF4JLogFactory");
    assertThat(listing.services()).containsKey("dev.lockstep.fs.FileIOLoader");
    // Read by name from the class path root by the OSS SDK, the Aliyun core SDK and HttpClient
    // (resource bundles, version and endpoint tables); documented in README.
    assertThat(listing.resourcesOutside())
        .containsExactlyInAnyOrder(
            "common.properties",
            "common_zh_CN.properties",
            "oss.properties",
            "oss_zh_CN.properties",
            "oss.mime.types",
            "versioninfo.properties",
            "endpoints.json",
            "regions.txt",
            "project.properties",
            "mozilla/public-suffix-list.txt");
    assertThat(listing.bundledArtifacts())
        .contains("com.aliyun.oss:aliyun-sdk-oss")
        .noneMatch(artifact -> artifact.equals("org.slf4j:slf4j-api"));
    // An Apache Paimon plugin too: only this backend's, with lockstep-paimon's classes unchanged.
    listing.assertPaimonPlugins(
        requiredFile("lockstep.paimon.jar"),
        "org.apache.paimon.fs.FileIOLoader",
        "dev.lockstep.paimon.fs.LockstepOssLoader");
    listing.assertLicensesListed();
  }

  /**
   * Three bundles on one class path: the S3 bundle (first, with its own HttpClient and Commons
   * Codec versions), the OSS bundle and the ZooKeeper bundle; the OSS store commits under the
   * ZooKeeper lock, each bundle on its own relocated copies.
   */
  @Test
  void commitsUnderAZooKeeperLockNextToOldHttpClientAndGson() throws Exception {
    String table = "warehouse/db.db/t" + System.nanoTime();
    IsolatedClasspath classpath =
        new IsolatedClasspath()
            .conflicts()
            .slf4j()
            .add(requiredFile("lockstep.bundle.s3"))
            .add(bundleJar())
            .add(requiredFile("lockstep.bundle.zookeeper"))
            .smoke();
    try (URLClassLoader engine = classpath.newLoader("engine")) {
      assertThat(origin(engine, "dev.lockstep.shaded.oss.org.apache.http.HttpVersion"))
          .contains("lockstep-fs-oss-bundle");
      assertThat(origin(engine, "dev.lockstep.shaded.s3.org.apache.http.HttpVersion"))
          .contains("lockstep-fs-s3-bundle");
      assertThat(origin(engine, "org.apache.http.client.HttpClient")).contains("httpclient-4.3.6");
      assertThat(origin(engine, "com.google.gson.Gson")).contains("gson-2.2.4");
      assertThat(origin(engine, "org.apache.commons.logging.LogFactory"))
          .contains("commons-logging-1.1.3");

      Map<String, String> summary =
          runSmoke(
              engine,
              Map.of(
                  "lock.enabled", "true",
                  "lock.type", "zookeeper",
                  "lock.zookeeper.connect-string", zooKeeper.getConnectString(),
                  "fs.oss.endpoint", oss.endpoint(),
                  "fs.oss.accessKeyId", oss.accessKeyId(),
                  "fs.oss.accessKeySecret", oss.accessKeySecret()),
              "oss://" + BUCKET + "/" + table);

      assertThat(summary.get("schemes")).contains("oss", "s3", "s3a", "file");
      assertThat(summary.get("lockTypes")).isEqualTo("[zookeeper]");
      assertThat(summary.get("store")).isEqualTo("dev.lockstep.fs.oss.OssFileIO");
      assertThat(summary.get("strategy")).isEqualTo("lock + atomic-create");
      assertThat(summary.get("snapshots")).isEqualTo("[1, 2, 3, 4, 5]");
      assertThat(summary.get("conflict")).isEqualTo("CONFLICT");
    }
    // The snapshots are in the OSS server's bucket.
    assertThat(oss.keys(BUCKET))
        .contains(table + "/snapshot/snapshot-1", table + "/snapshot/snapshot-5");
  }

  /**
   * The control: the same store unshaded (fs-oss, the OSS SDK, HttpClient 4.5) behind the same
   * conflicting libraries does not work, so the smoke passes because of the relocation.
   */
  @Test
  void theUnshadedStoreFailsNextToTheSameConflictingLibraries() throws Exception {
    IsolatedClasspath classpath =
        new IsolatedClasspath()
            .conflicts()
            .slf4j()
            .classpathFile("lockstep.bundle.unshaded-classpath")
            .smoke();
    try (URLClassLoader engine = classpath.newLoader("engine-unshaded")) {
      assertThat(origin(engine, "org.apache.http.client.HttpClient")).contains("httpclient-4.3.6");
      assertThatThrownBy(
              () ->
                  runSmoke(
                      engine,
                      Map.of(
                          "fs.oss.endpoint", oss.endpoint(),
                          "fs.oss.accessKeyId", oss.accessKeyId(),
                          "fs.oss.accessKeySecret", oss.accessKeySecret()),
                      "oss://" + BUCKET + "/control/t" + System.nanoTime()))
          .as("the unshaded store next to HttpClient 4.3")
          .isInstanceOf(LinkageError.class);
    }
  }
}
