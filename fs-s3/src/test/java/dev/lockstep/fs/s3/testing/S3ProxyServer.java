package dev.lockstep.fs.s3.testing;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.s3.S3Options;
import java.io.IOException;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.domain.PageSet;
import org.gaul.s3proxy.blobstore.domain.StorageMetadata;
import org.gaul.s3proxy.blobstore.domain.StorageType;
import org.gaul.s3proxy.blobstore.options.ListContainerOptions;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3 server in this JVM: s3proxy 4.0.0 on the {@code transient-nio2} store (in memory, and
 * its {@code If-None-Match: *} is atomic), on a free port of 127.0.0.1, with SigV4 authentication,
 * holding one bucket, {@link #BUCKET}.
 *
 * <p>The store writes each upload to a temporary object {@code <key>-<UUID>} beside its key and
 * then moves it into place, and its listing shows that temporary object meanwhile; S3 never lists
 * an upload in progress, and a client that parses the names it lists (Paimon parses every name in
 * {@code snapshot/}) then fails on it (about once in 20 runs of four JVMs x 200 commits). Listings
 * here leave those names out ({@link HidingUploadsInProgress}), as S3 does.
 *
 * <p>fs-s3's tests and the S3 benchmark use this one class, from fs-s3's test-jar (which holds only
 * this package). s3proxy is a test dependency of fs-s3, so a user of the jar declares it too, with
 * the same exclusions and Jackson pin as fs-s3's {@code pom.xml}; the AWS SDK (for {@link
 * #admin()}) comes with fs-s3.
 */
public final class S3ProxyServer implements AutoCloseable {

  public static final String ACCESS_KEY = "lockstep-access";
  public static final String SECRET_KEY = "lockstep-secret-never-logged";
  public static final String BUCKET = "lockstep";

  private final BlobStore blobStore;
  private final S3Proxy proxy;
  private final URI endpoint;
  private final S3Client admin;

  private S3ProxyServer(boolean authenticated) throws Exception {
    blobStore = new HidingUploadsInProgress(new TransientNio2BlobStore());
    proxy =
        S3Proxy.builder()
            .blobStore(blobStore)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(
                authenticated ? AuthenticationType.AWS_V2_OR_V4 : AuthenticationType.NONE,
                ACCESS_KEY,
                SECRET_KEY)
            .build();
    proxy.start();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!proxy.getState().equals("STARTED")) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
      }
      Thread.sleep(10);
    }
    endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    admin =
        S3Client.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
            .forcePathStyle(true)
            .build();
    admin.createBucket(b -> b.bucket(BUCKET));
  }

  /**
   * Leaves the store's uploads in progress ({@code <key>-<UUID>}) out of listings. No Lockstep or
   * Paimon object name ends in a dash and a whole UUID (theirs carry an extension or a counter
   * after the UUID, or a slash before it), but fs-s3's conditional-write probe objects do ({@code
   * .lockstep-probe-<UUID>}): they are kept.
   */
  private static final class HidingUploadsInProgress extends ForwardingBlobStore {

    private static final Pattern IN_PROGRESS =
        Pattern.compile(".*-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    HidingUploadsInProgress(BlobStore delegate) {
      super(delegate);
    }

    @Override
    public PageSet<? extends StorageMetadata> list(String container, ListContainerOptions options) {
      PageSet<? extends StorageMetadata> page = delegate().list(container, options);
      List<StorageMetadata> kept = new java.util.ArrayList<>();
      for (StorageMetadata m : page) {
        if (m.type() == StorageType.BLOB
            && IN_PROGRESS.matcher(m.name()).matches()
            && !m.name().contains(".lockstep-probe-")) {
          continue;
        }
        kept.add(m);
      }
      return new PageSet<>(kept, page.nextMarker());
    }
  }

  public static S3ProxyServer start() throws Exception {
    return new S3ProxyServer(true);
  }

  /** A server that checks no signatures, so that a proxy may rewrite signed headers. */
  public static S3ProxyServer startWithoutAuthentication() throws Exception {
    return new S3ProxyServer(false);
  }

  public URI endpoint() {
    return endpoint;
  }

  public int port() {
    return proxy.getPort();
  }

  /** A client on the server with the SDK's defaults, to look behind the store's back. */
  public S3Client admin() {
    return admin;
  }

  /** A fresh, empty directory of the test bucket. */
  public Path freshRoot() {
    return Path.of("s3://" + BUCKET + "/t-" + UUID.randomUUID());
  }

  /** The catalog options that reach this server at {@code endpoint}. */
  public static Map<String, String> options(URI endpoint) {
    Map<String, String> options = new HashMap<>();
    options.put(S3Options.ENDPOINT, endpoint.toString());
    options.put(S3Options.REGION, "us-east-1");
    options.put(S3Options.ACCESS_KEY, ACCESS_KEY);
    options.put(S3Options.SECRET_KEY, SECRET_KEY);
    options.put(S3Options.PATH_STYLE_ACCESS, "true");
    return options;
  }

  public Map<String, String> options() {
    return options(endpoint);
  }

  /** Opens the store for {@code root} through the ServiceLoader, as a catalog would. */
  public FileIO open(Path root, Map<String, String> extra) throws IOException {
    Map<String, String> options = options();
    options.putAll(extra);
    return FileIODiscovery.open(root, options);
  }

  @Override
  public void close() throws IOException {
    admin.close();
    try {
      proxy.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while stopping s3proxy", e);
    } catch (Exception e) {
      throw new IOException("Stopping s3proxy failed", e);
    } finally {
      blobStore.close();
    }
  }
}
