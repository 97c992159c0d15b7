package dev.lockstep.bench.jmh;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * FileAlreadyExistsException}), which is what a losing committer pays. The server is fs-s3's own
 * test server ({@link S3ProxyServer}, from its test-jar); the store is opened through the
 * ServiceLoader with that server's options, as a catalog would.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class S3ConditionalCreateBenchmark {

  private static final String ROOT = "s3://" + S3ProxyServer.BUCKET + "/jmh";

  private S3ProxyServer server;
  private SupportsAtomicCreate store;
  private Path existing;
  private long next;
  private final byte[] content =
      ("{\"id\":1,\"commitId\":\"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\"}")
          .getBytes(StandardCharsets.UTF_8);

  @Setup(Level.Trial)
  public void open() throws Exception {
    server = S3ProxyServer.start();
    FileIO io = server.open(Path.of(ROOT), Map.of());
    if (!(io instanceof SupportsAtomicCreate)) {
      throw new IllegalStateException(
          "The S3 store on s3proxy "
              + io.getClass().getName()
              + " offers no atomic create; s3proxy 4.0.0 honours If-None-Match: *");
    }
    store = (SupportsAtomicCreate) io;
    existing = Path.of(ROOT + "/snapshot/snapshot-0");
    store.createAtomically(existing, content);
  }

  @Benchmark
  public long create() throws IOException {
    long id = ++next;
    store.createAtomically(Path.of(ROOT + "/snapshot/snapshot-" + id), content);
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
    server.close();
  }
}
