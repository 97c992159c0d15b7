package dev.lockstep.paimon.fs;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsWriteDeadline;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.paimon.lock.CurrentLease;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Paimon's {@code tryToWriteAtomic(path, content)} on a Lockstep store: the Paimon-free core of the
 * snapshot and schema commit. Returns true when this call created the file, false when another
 * writer's file is there, and throws when the outcome is unknown after reading back (Paimon then
 * cleans nothing up and its retry looks for its own snapshot first).
 *
 * <ol>
 *   <li>A store with an atomic create (S3 {@code If-None-Match: *}, OSS {@code
 *       x-oss-forbid-overwrite}): ONE conditional create. Created → true; {@link
 *       FileAlreadyExistsException} → false; a lost answer → read back: our bytes → true, other
 *       bytes → false, absent or unreadable → exception.
 *   <li>A store without it, inside a {@code lockstep-*} lock ({@link CurrentLease}): {@code
 *       ensureHeld}; present → false; a write bounded by the lease time left minus {@code
 *       commit.lease-margin} (the S3/OSS request carries that deadline, so a paused writer's upload
 *       is aborted rather than completed late); {@code ensureHeld} again (lost → {@link
 *       LockLostException}: unknown); read back as in step 1.
 *   <li>A store without it, under another configured lock (Paimon's own {@code jdbc} or {@code
 *       hive} lock): present → false; a plain write that fails if the file is there; read back.
 *   <li>A store without it and no lock: refused with one line that names the fix, before writing.
 * </ol>
 */
final class AtomicWrite {

  private AtomicWrite() {}

  static boolean write(
      FileIO store, StoreKind kind, Path path, byte[] content, Map<String, String> options)
      throws IOException {
    if (store instanceof SupportsAtomicCreate atomic) {
      try {
        atomic.createAtomically(path, content);
        return true;
      } catch (FileAlreadyExistsException e) {
        return false;
      } catch (UncertainWriteException e) {
        return readBack(store, path, content, e);
      }
    }
    Optional<Lease> lease = CurrentLease.get();
    if (lease.isPresent()) {
      return writeUnderLease(store, path, content, lease.get(), options);
    }
    if (!lockConfigured(options)) {
      throw new IOException(
          "Refusing to commit "
              + path
              + " without a lock: this store cannot"
              + " create a file only if it is absent ("
              + kind.conditionalWriteHint()
              + "), so"
              + " concurrent Paimon commits could overwrite each other's snapshot; set 'lock.type' ="
              + " 'lockstep-zookeeper' (or 'lockstep-jdbc', 'lockstep-hive'), or use a store with"
              + " conditional writes.");
    }
    if (store.exists(path)) {
      return false;
    }
    try (OutputStream out = store.newOutputStream(path, false)) {
      out.write(content);
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (UncertainWriteException e) {
      return readBack(store, path, content, e);
    }
    return readBack(store, path, content, null);
  }

  private static boolean writeUnderLease(
      FileIO store, Path path, byte[] content, Lease lease, Map<String, String> options)
      throws IOException {
    lease.ensureHeld();
    if (store.exists(path)) {
      return false;
    }
    Duration budget = lease.timeLeft().minus(CommitOptions.from(options).leaseMargin());
    if (budget.isNegative() || budget.isZero()) {
      throw new LockLostException(
          "Not writing "
              + path
              + ": the lease of "
              + lease.key()
              + " has less than 'commit.lease-margin' left; nothing was written.");
    }
    lease.ensureHeld();
    UncertainWriteException uncertain = null;
    try {
      if (store instanceof SupportsWriteDeadline deadline) {
        deadline.writeWithin(path, content, false, budget);
      } else {
        try (OutputStream out = store.newOutputStream(path, false)) {
          out.write(content);
        }
      }
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (UncertainWriteException e) {
      uncertain = e;
    }
    lease.ensureHeld();
    return readBack(store, path, content, uncertain);
  }

  /** Our bytes at {@code path} → true; other bytes → false; absent or unreadable → unknown. */
  private static boolean readBack(
      FileIO store, Path path, byte[] content, UncertainWriteException cause) throws IOException {
    byte[] found;
    try (InputStream in = store.newInputStream(path)) {
      found = in.readAllBytes();
    } catch (FileNotFoundException e) {
      IOException unknown =
          new IOException(
              "The outcome of writing "
                  + path
                  + " is unknown: the"
                  + " write was not confirmed and the file is not there now.",
              cause);
      unknown.addSuppressed(e);
      throw unknown;
    } catch (IOException e) {
      IOException unknown =
          new IOException(
              "The outcome of writing "
                  + path
                  + " is unknown: reading"
                  + " it back failed ("
                  + e.getMessage()
                  + ").",
              cause);
      unknown.addSuppressed(e);
      throw unknown;
    }
    return Arrays.equals(found, content);
  }

  /**
   * Whether the catalog takes a lock for the snapshot commit: {@code lock.enabled} is not false
   * (Paimon enables it on object stores) and either {@code lock.type} is set or the metastore has a
   * default lock ({@code jdbc}, {@code hive}).
   */
  static boolean lockConfigured(Map<String, String> options) {
    String enabled = options.get("lock.enabled");
    if (enabled != null && enabled.trim().equalsIgnoreCase("false")) {
      return false;
    }
    String type = options.get("lock.type");
    if (type != null && !type.isBlank()) {
      return true;
    }
    String metastore =
        options.getOrDefault("metastore", "filesystem").trim().toLowerCase(Locale.ROOT);
    return metastore.equals("jdbc") || metastore.equals("hive");
  }
}
