package dev.lockstep.testing;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.StoreEndpoint;
import dev.lockstep.fs.SupportsAtomicCreate;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A store that names an endpoint ({@link StoreEndpoint}) and declares atomic create, for tests of
 * the commit protocol's atomic-create probe; for tests only. Two kinds:
 *
 * <ul>
 *   <li>{@link #atomic}: the delegate's own atomic create (over {@code LocalFileIO}, {@code
 *       link(2)}).
 *   <li>{@link #checkThenPut}: what s3proxy before 4.0 did with {@code If-None-Match: *}: ask
 *       whether the key exists, then, one round trip later ({@code gap}), put with replace. Any
 *       single writer sees a correct create-if-absent; two racing writers can both succeed.
 * </ul>
 *
 * <p>{@link #creates()} counts {@code createAtomically} calls. Every other call goes to the
 * delegate.
 */
public final class RemoteCreateFileIO extends CapabilityHidingFileIO
    implements SupportsAtomicCreate, StoreEndpoint {

  private final String endpoint;
  private final long gapMillis;
  private final boolean atomic;
  private final AtomicLong creates = new AtomicLong();

  private RemoteCreateFileIO(FileIO delegate, String endpoint, boolean atomic, long gapMillis) {
    super(delegate);
    this.endpoint = endpoint;
    this.atomic = atomic;
    this.gapMillis = gapMillis;
  }

  /** An endpoint whose create is the delegate's atomic create. */
  public static RemoteCreateFileIO atomic(SupportsAtomicCreate delegate, String endpoint) {
    return new RemoteCreateFileIO(delegate, endpoint, true, 0);
  }

  /** An endpoint whose create checks, waits {@code gapMillis} (a round trip), then replaces. */
  public static RemoteCreateFileIO checkThenPut(FileIO delegate, String endpoint, long gapMillis) {
    return new RemoteCreateFileIO(delegate, endpoint, false, gapMillis);
  }

  @Override
  public void createAtomically(Path path, byte[] content) throws IOException {
    creates.incrementAndGet();
    if (atomic) {
      ((SupportsAtomicCreate) delegate()).createAtomically(path, content);
      return;
    }
    if (delegate().exists(path)) {
      throw new FileAlreadyExistsException(path.toString(), null, "checked, then would have put");
    }
    try {
      Thread.sleep(gapMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted between check and put");
    }
    try (OutputStream out = delegate().newOutputStream(path, true)) {
      out.write(content);
    }
  }

  @Override
  public String endpointIdentity(Path path) {
    return endpoint;
  }

  /** How many times {@code createAtomically} was called. */
  public long creates() {
    return creates.get();
  }
}
