package dev.lockstep.bench.jmh;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.options.CreateContainerOptions;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A conditional create ({@code PUT} with {@code If-None-Match: *}) through fs-s3's store on s3proxy
 * 4.0.0 ({@code transient-nio2}, SigV4) in this JVM: {@code create} publishes a fresh key (200);
 * {@code createConflict} tries an existing key and gets the conflict (412, {@link
 * FileAlreadyExistsException}), which is what a losing committer pays. fs-s3 keeps its s3proxy fixture
 * in its tests (no test-jar), so the server is started here the same way.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class S3ConditionalCreateBenchmark {

  private static final String ACCESS_KEY = "lockstep-bench";
  private static final String SECRET_KEY = "lockstep-bench-secret";
  private static final String BUCKET = "lockstep-bench";

  private BlobStore blobStore;
  private S3Proxy proxy;
  private SupportsAtomicCreate store;
  private Path existing;
  private long next;
  private final byte[] content = ("{\"id\":1,\"commitId\":\"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\"}")
      .getBytes(StandardCharsets.UTF_8);

  @Setup(Level.Trial)
  public void open() throws Exception {
    blobStore = new TransientNio2BlobStore();
    blobStore.createContainer(BUCKET, CreateContainerOptions.NONE);
    proxy = S3Proxy.builder()
        .blobStore(blobStore)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .build();
    proxy.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!proxy.getState().equals("STARTED")) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
      }
      Thread.sleep(10);
    }
    FileIO io = FileIODiscovery.open(Path.of("s3://" + BUCKET + "/jmh"), Map.of(
        "s3.endpoint", "http://127.0.0.1:" + proxy.getPort(),
        "s3.region", "us-east-1",
        "s3.access-key", ACCESS_KEY,
        "s3.secret-key", SECRET_KEY,
        "s3.path-style-access", "true"));
    if (!(io instanceof SupportsAtomicCreate)) {
      throw new IllegalStateException("The S3 store on s3proxy " + io.getClass().getName()
          + " offers no atomic create; s3proxy 4.0.0 honours If-None-Match: *");
    }
    store = (SupportsAtomicCreate) io;
    existing = Path.of("s3://" + BUCKET + "/jmh/snapshot/snapshot-0");
    store.createAtomically(existing, content);
  }

  @Benchmark
  public long create() throws IOException {
    long id = ++next;
    store.createAtomically(Path.of("s3://" + BUCKET + "/jmh/snapshot/snapshot-" + id), content);
    return id;
  }

  @Benchmark
  public boolean createConflict() throws IOException {
    try {
      store.createAtomically(existing, content);
    } catch (FileAlreadyExistsException expected) {
      return true;
    }
    throw new IllegalStateException("A conditional create over " + existing + " succeeded");
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    store.close();
    proxy.stop();
    blobStore.close();
  }
}
