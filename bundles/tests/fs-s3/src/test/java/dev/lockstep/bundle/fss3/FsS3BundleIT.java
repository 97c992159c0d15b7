package dev.lockstep.bundle.fss3;

import static dev.lockstep.bundle.testing.IsolatedClasspath.bundleJar;
import static dev.lockstep.bundle.testing.IsolatedClasspath.origin;
import static dev.lockstep.bundle.testing.IsolatedClasspath.requiredFile;
import static dev.lockstep.bundle.testing.IsolatedClasspath.runSmoke;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.bundle.testing.BundleListing;
import dev.lockstep.bundle.testing.IsolatedClasspath;
import dev.lockstep.testing.TestTiming;
import java.net.URI;
import java.net.URLClassLoader;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.options.CreateContainerOptions;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fs-s3 bundle: self-contained, and committing under a ZooKeeper lock (the ZooKeeper bundle in
 * the same loader) to s3proxy, next to AWS SDK 2.17 and HttpClient 4.3 on the same class path.
 */
class FsS3BundleIT {

  private static final String ACCESS_KEY = "bundle-access";
  private static final String SECRET_KEY = "bundle-secret-never-logged";
  private static final String BUCKET = "lockstep-bundle";

  private static TestingServer zooKeeper;
  private static BlobStore blobStore;
  private static S3Proxy s3;

  @BeforeAll
  static void startServers() throws Exception {
    zooKeeper = new TestingServer(true);
    blobStore = new TransientNio2BlobStore();
    blobStore.createContainer(BUCKET, CreateContainerOptions.NONE);
    s3 =
        S3Proxy.builder()
            .blobStore(blobStore)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
    s3.start();
    long deadline = System.nanoTime() + TestTiming.seconds(30).toNanos();
    while (!s3.getState().equals("STARTED")) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("s3proxy did not start: " + s3.getState());
      }
      Thread.sleep(10);
    }
  }

  @AfterAll
  static void stopServers() throws Exception {
    if (s3 != null) {
      s3.stop();
    }
    if (blobStore != null) {
      blobStore.close();
    }
    if (zooKeeper != null) {
      zooKeeper.close();
    }
  }

  @Test
  void everyThirdPartyClassIsRelocatedUnderDevLockstepShaded() throws Exception {
    BundleListing listing = BundleListing.of(bundleJar());
    listing.assertShadedOnlyUnder("dev/lockstep/shaded/s3/");
    listing.assertSelfContained(
        "dev.lockstep.fs.s3.S3FileIOLoader",
        "dev.lockstep.shaded.s3.software.amazon.awssdk.services.s3.S3Client",
        "dev.lockstep.shaded.s3.software.amazon.awssdk.http.apache.ApacheHttpClient",
        "dev.lockstep.shaded.s3.org.apache.http.impl.client.CloseableHttpClient",
        "dev.lockstep.shaded.s3.org.apache.commons.codec.binary.Base64",
        // Commons Logging is the SLF4J bridge: the HTTP client logs to the engine's SLF4J.
        "dev.lockstep.shaded.s3.org.apache.commons.logging.impl.SLF4JLogFactory");
    assertThat(listing.services())
        .containsKeys(
            "dev.lockstep.fs.FileIOLoader",
            "dev.lockstep.shaded.s3.software.amazon.awssdk.http.SdkHttpService");
    // The SDK's own data files moved with its classes.
    assertThat(listing.entries())
        .contains(
            "dev/lockstep/shaded/s3/software/amazon/awssdk/regions/internal/region/endpoints.json",
            "dev/lockstep/shaded/s3/software/amazon/awssdk/awscore/internal/defaults/sdk-default-configuration.json");
    // Read by name from the class path root by HttpClient and the SDK (documented in README).
    assertThat(listing.resourcesOutside())
        .containsExactlyInAnyOrder("mime.types", "mozilla/public-suffix-list.txt");
    assertThat(listing.bundledArtifacts())
        .contains("software.amazon.awssdk:s3", "org.apache.httpcomponents:httpclient")
        .noneMatch(artifact -> artifact.equals("org.slf4j:slf4j-api"));
    // An Apache Paimon plugin too: only this backend's, with lockstep-paimon's classes unchanged.
    listing.assertPaimonPlugins(
        requiredFile("lockstep.paimon.jar"),
        "org.apache.paimon.fs.FileIOLoader",
        "dev.lockstep.paimon.fs.LockstepS3Loader",
        "dev.lockstep.paimon.fs.LockstepS3aLoader");
    listing.assertLicensesListed();
  }

  @Test
  void commitsUnderAZooKeeperLockNextToAnotherAwsSdk() throws Exception {
    String table = "warehouse/db.db/t" + System.nanoTime();
    IsolatedClasspath classpath =
        new IsolatedClasspath()
            .conflicts()
            .slf4j()
            .add(bundleJar())
            .add(requiredFile("lockstep.bundle.zookeeper"))
            .smoke();
    try (URLClassLoader engine = classpath.newLoader("engine")) {
      assertThat(origin(engine, "software.amazon.awssdk.core.SdkBytes"))
          .contains("sdk-core-2.17.100");
      assertThat(origin(engine, "org.apache.http.client.HttpClient")).contains("httpclient-4.3.6");
      assertThat(origin(engine, "com.fasterxml.jackson.databind.ObjectMapper"))
          .contains("jackson-databind-2.12.7");

      Map<String, String> summary =
          runSmoke(
              engine,
              Map.of(
                  "lock.enabled",
                  "true",
                  "lock.type",
                  "zookeeper",
                  "lock.zookeeper.connect-string",
                  zooKeeper.getConnectString(),
                  "s3.endpoint",
                  "http://127.0.0.1:" + s3.getPort(),
                  "s3.region",
                  "us-east-1",
                  "s3.access-key",
                  ACCESS_KEY,
                  "s3.secret-key",
                  SECRET_KEY,
                  "s3.path-style-access",
                  "true"),
              "s3://" + BUCKET + "/" + table);

      assertThat(summary.get("schemes")).contains("s3", "s3a", "file");
      assertThat(summary.get("lockTypes")).isEqualTo("[zookeeper]");
      assertThat(summary.get("store")).isEqualTo("dev.lockstep.fs.s3.S3ConditionalFileIO");
      assertThat(summary.get("strategy")).isEqualTo("lock + atomic-create");
      assertThat(summary.get("snapshots")).isEqualTo("[1, 2, 3, 4, 5]");
      assertThat(summary.get("conflict")).isEqualTo("CONFLICT");
    }
    // The snapshots are in the S3 server's bucket.
    for (int id = 1; id <= 5; id++) {
      assertThat(blobStore.blobExists(BUCKET, table + "/snapshot/snapshot-" + id))
          .as("snapshot-%s in the bucket", id)
          .isTrue();
    }
  }

  /**
   * The control: the same store unshaded (fs-s3, AWS SDK 2.29, HttpClient 4.5) behind the same
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
      assertThat(origin(engine, "software.amazon.awssdk.core.SdkBytes"))
          .contains("sdk-core-2.17.100");
      assertThatThrownBy(
              () ->
                  runSmoke(
                      engine,
                      Map.of(
                          "s3.endpoint",
                          "http://127.0.0.1:" + s3.getPort(),
                          "s3.region",
                          "us-east-1",
                          "s3.access-key",
                          ACCESS_KEY,
                          "s3.secret-key",
                          SECRET_KEY,
                          "s3.path-style-access",
                          "true"),
                      "s3://" + BUCKET + "/control/t" + System.nanoTime()))
          .as("the unshaded store next to AWS SDK 2.17 and HttpClient 4.3")
          .isInstanceOf(LinkageError.class);
    }
  }
}
