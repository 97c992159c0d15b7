package dev.lockstep.fs.s3;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3 server in this JVM: s3proxy 4.0.0 on the {@code transient-nio2} store (in memory, and
 * its {@code If-None-Match: *} is atomic), on a free port of 127.0.0.1, with SigV4 authentication.
 */
final class S3ProxyServer implements AutoCloseable {

  static final String ACCESS_KEY = "lockstep-access";
  static final String SECRET_KEY = "lockstep-secret-never-logged";
  static final String BUCKET = "lockstep";

  private final BlobStore blobStore;
  private final S3Proxy proxy;
  private final URI endpoint;
  private final S3Client admin;

  private S3ProxyServer(boolean authenticated) throws Exception {
    blobStore = new TransientNio2BlobStore();
    proxy = S3Proxy.builder()
        .blobStore(blobStore)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(authenticated ? AuthenticationType.AWS_V2_OR_V4 : AuthenticationType.NONE,
            ACCESS_KEY, SECRET_KEY)
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
    admin = S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .forcePathStyle(true)
        .build();
    admin.createBucket(b -> b.bucket(BUCKET));
  }

  static S3ProxyServer start() throws Exception {
    return new S3ProxyServer(true);
  }

  /** A server that checks no signatures, so that a proxy may rewrite signed headers. */
  static S3ProxyServer startWithoutAuthentication() throws Exception {
    return new S3ProxyServer(false);
  }

  URI endpoint() {
    return endpoint;
  }

  int port() {
    return proxy.getPort();
  }

  /** A client on the server with the SDK's defaults, to look behind the store's back. */
  S3Client admin() {
    return admin;
  }

  /** A fresh, empty directory of the test bucket. */
  Path freshRoot() {
    return Path.of("s3://" + BUCKET + "/t-" + UUID.randomUUID());
  }

  /** The catalog options that reach this server at {@code endpoint}. */
  static Map<String, String> options(URI endpoint) {
    Map<String, String> options = new HashMap<>();
    options.put(S3Options.ENDPOINT, endpoint.toString());
    options.put(S3Options.REGION, "us-east-1");
    options.put(S3Options.ACCESS_KEY, ACCESS_KEY);
    options.put(S3Options.SECRET_KEY, SECRET_KEY);
    options.put(S3Options.PATH_STYLE_ACCESS, "true");
    return options;
  }

  Map<String, String> options() {
    return options(endpoint);
  }

  /** Opens the store for {@code root} through the ServiceLoader, as a catalog would. */
  FileIO open(Path root, Map<String, String> extra) throws IOException {
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
