package dev.lockstep.cli;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Checks the store, the commit strategy and the lock before a command writes anything, so that bad
 * options or an unreachable server fail with one line and leave nothing half-written.
 *
 * <ol>
 *   <li>The warehouse's scheme has a store, and the store opens.
 *   <li>A safe commit strategy exists for these options on this store (no unsafe fallback).
 *   <li>With {@code lock.enabled=true}: {@code lock.type} is known, and the table's lock can be
 *       acquired and released within {@code lock-acquire-timeout}.
 * </ol>
 */
final class Preflight {

  /** fs-s3's option (named, not imported: the command line finds its backends at run time). */
  private static final String S3_CONDITIONAL_WRITES = "s3.conditional-writes";

  private Preflight() {}

  /**
   * The options to open the store with for a command that only reads: capability probing off, so
   * that reading never writes a probe object (issue 25). On S3 an unset or {@code auto} {@code
   * s3.conditional-writes} becomes {@code false} there: reads are the same either way, and only
   * commands that write (through {@link #check}) or {@code conformance} probe.
   */
  static Map<String, String> readOnly(String warehouse, Map<String, String> options) {
    String scheme = Path.of(warehouse).scheme();
    String conditional = options.get(S3_CONDITIONAL_WRITES);
    if (("s3".equals(scheme) || "s3a".equals(scheme))
        && (conditional == null || conditional.trim().equalsIgnoreCase("auto"))) {
      Map<String, String> noProbe = new LinkedHashMap<>(options);
      noProbe.put(S3_CONDITIONAL_WRITES, "false");
      return noProbe;
    }
    return options;
  }

  static void check(String warehouse, String table, Map<String, String> options)
      throws IOException, InterruptedException {
    LockOptions lock = LockOptions.from(options);
    if (lock.enabled()) {
      if (lock.type() == null) {
        throw new UserError(
            "option 'lock.enabled=true' needs 'lock.type'; lock types found: "
                + LockServiceDiscovery.factories(Preflight.class.getClassLoader()).keySet());
      }
      if (!LockServiceDiscovery.factories(Preflight.class.getClassLoader())
          .containsKey(lock.type())) {
        throw new UserError(
            "unknown lock.type '"
                + lock.type()
                + "'; lock types found: "
                + LockServiceDiscovery.factories(Preflight.class.getClassLoader()).keySet());
      }
    }
    String key = Identifier.parse(table).fullName();
    try (FileIO io = FileIODiscovery.open(Path.of(warehouse), options)) {
      if (!lock.enabled()) {
        // Refuses, with the fix, a store where no lock-free strategy is safe.
        SnapshotCommitter.builder(io, Path.of(warehouse).child(".preflight"), key)
            .options(CommitOptions.from(options))
            .build()
            .close();
        return;
      }
      try (LockService service = LockServiceDiscovery.open(options)) {
        Optional<Lease> lease = service.acquire(key, lock.acquireTimeout());
        if (lease.isEmpty()) {
          throw new UserError(
              "could not acquire the lock of "
                  + key
                  + " through lock.type '"
                  + lock.type()
                  + "' within "
                  + Durations.format(lock.acquireTimeout())
                  + " (option 'lock-acquire-timeout'); is another job holding it, or is the lock"
                  + " service unreachable?",
              OneLineErrors.ENVIRONMENT);
        }
        lease.get().close();
      }
    } catch (IOException e) {
      throw new UserError(
          "cannot use the lock or store: " + OneLineErrors.describe(e), OneLineErrors.ENVIRONMENT);
    }
  }
}
