package dev.lockstep.conformance;

import dev.lockstep.lock.CatalogLockFactory;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * TEST FIXTURE, {@code lock.type=test-os-file}: a lock across processes on one machine, on the
 * operating system's file locks ({@code fcntl}) in {@code lock.test-os-file.directory}. The kernel
 * drops a dead process's locks at once, so the holder-death bound is small. It exists so that the
 * kit's default holder killer (a child JVM that acquires through {@code LockServiceDiscovery} and
 * halts) is exercised for real. Fencing tokens are a counter file per key, bumped under the lock.
 */
public final class OsFileLockFactory implements CatalogLockFactory {

  static final String DIRECTORY = "lock.test-os-file.directory";

  /** In-JVM exclusion: the OS lock is per process, so threads of one JVM queue here first. */
  private static final Map<String, Semaphore> IN_JVM = new ConcurrentHashMap<>();

  @Override
  public String identifier() {
    return "test-os-file";
  }

  @Override
  public LockService create(Map<String, String> options) {
    String dir = options.get(DIRECTORY);
    if (dir == null) {
      throw new IllegalArgumentException("Option '" + DIRECTORY + "' is required");
    }
    return new Service(java.nio.file.Path.of(dir));
  }

  private static final class Service implements LockService {
    private final java.nio.file.Path dir;
    private final java.util.Set<OsLease> held = ConcurrentHashMap.newKeySet();

    Service(java.nio.file.Path dir) {
      this.dir = dir;
    }

    @Override
    public Optional<Lease> acquire(String key, Duration timeout)
        throws IOException, InterruptedException {
      long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
      Files.createDirectories(dir);
      java.nio.file.Path file = dir.resolve(key + ".lock").toAbsolutePath();
      Semaphore local = IN_JVM.computeIfAbsent(file.toString(), k -> new Semaphore(1, true));
      if (!local.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        return Optional.empty();
      }
      FileChannel channel = null;
      try {
        channel =
            FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        while (true) {
          FileLock lock = channel.tryLock();
          if (lock != null) {
            long token = nextToken(channel);
            FileChannel held = channel;
            channel = null;
            OsLease lease = new OsLease(key, token, held, lock, local);
            this.held.add(lease);
            return Optional.of(lease);
          }
          if (System.nanoTime() >= deadline) {
            return Optional.empty();
          }
          Thread.sleep(5);
        }
      } finally {
        if (channel != null) {
          channel.close();
          local.release();
        }
      }
    }

    private static long nextToken(FileChannel channel) throws IOException {
      ByteBuffer buffer = ByteBuffer.allocate(32);
      channel.read(buffer, 0);
      String text =
          new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII).trim();
      long token = text.isEmpty() ? 1 : Long.parseLong(text) + 1;
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(Long.toString(token).getBytes(StandardCharsets.US_ASCII)), 0);
      channel.force(false);
      return token;
    }

    @Override
    public Duration holderDeathBound() {
      return Duration.ofSeconds(1);
    }

    /** Releases every lease this client still holds, as the SPI requires. */
    @Override
    public void close() throws IOException {
      for (OsLease lease : held) {
        lease.close();
      }
      held.clear();
    }
  }

  private static final class OsLease implements Lease {
    private final String key;
    private final long token;
    private final FileChannel channel;
    private final FileLock lock;
    private final Semaphore local;
    private final AtomicBoolean held = new AtomicBoolean(true);

    OsLease(String key, long token, FileChannel channel, FileLock lock, Semaphore local) {
      this.key = key;
      this.token = token;
      this.channel = channel;
      this.lock = lock;
      this.local = local;
    }

    @Override
    public String key() {
      return key;
    }

    @Override
    public long fencingToken() {
      return token;
    }

    @Override
    public Duration timeLeft() {
      return held.get() ? Duration.ofMinutes(1) : Duration.ZERO;
    }

    @Override
    public boolean isHeld() {
      return held.get();
    }

    @Override
    public void ensureHeld() throws LockLostException {
      if (!held.get()) {
        throw new LockLostException("The lease on '" + key + "' was released");
      }
    }

    @Override
    public void close() throws IOException {
      if (held.compareAndSet(true, false)) {
        try {
          lock.release();
          channel.close();
        } finally {
          local.release();
        }
      }
    }
  }
}
