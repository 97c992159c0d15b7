package dev.lockstep.paimon.lock;

import dev.lockstep.lock.CatalogLockFactory;
import dev.lockstep.lock.LockService;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One Lockstep {@link LockService} per backend and configuration in the JVM, shared by every Paimon
 * lock made from that configuration and closed when the last of them closes.
 *
 * <p>Paimon calls {@code createLock} once per commit object, on every task manager, so a new
 * Curator client, Hikari pool or metastore client per call would flood the server. The key is the
 * backend identifier plus the options the backend reads (see {@link #configurationKey}).
 */
final class SharedLockServices {

  private static final Map<String, Entry> SERVICES = new HashMap<>();

  private SharedLockServices() {}

  /** A counted reference to a shared service; {@link #release()} once. */
  static final class Handle {
    private final String key;
    private final LockService service;
    private boolean released;

    private Handle(String key, LockService service) {
      this.key = key;
      this.service = service;
    }

    LockService service() {
      return service;
    }

    /** Drops this reference; the last one closes the service. Idempotent. */
    void release() throws IOException {
      LockService toClose = null;
      synchronized (SERVICES) {
        if (released) {
          return;
        }
        released = true;
        Entry entry = SERVICES.get(key);
        if (entry != null && entry.service == service && --entry.references == 0) {
          SERVICES.remove(key);
          toClose = service;
        }
      }
      if (toClose != null) {
        toClose.close();
      }
    }
  }

  private static final class Entry {
    final LockService service;
    int references;

    Entry(LockService service) {
      this.service = service;
    }
  }

  /**
   * A reference to the service for {@code options}, opening it with {@code backend} when none is
   * open.
   *
   * @throws IllegalArgumentException when an option is missing or invalid (from the backend)
   * @throws IOException when the backend cannot be set up
   */
  static Handle acquire(String identifier, CatalogLockFactory backend, Map<String, String> options)
      throws IOException {
    String key = identifier + configurationKey(options);
    synchronized (SERVICES) {
      Entry entry = SERVICES.get(key);
      if (entry == null) {
        entry = new Entry(backend.create(options));
        SERVICES.put(key, entry);
      }
      entry.references++;
      return new Handle(key, entry.service);
    }
  }

  /** How many services are open now (for tests). */
  static int openServices() {
    synchronized (SERVICES) {
      return SERVICES.size();
    }
  }

  /**
   * The options a lock backend may read: {@code lock.*}, {@code lock-*} and the catalog {@code uri}
   * (the Hive lock's metastore), sorted. Other catalog options (warehouse, table defaults) do not
   * make a new client.
   */
  static String configurationKey(Map<String, String> options) {
    Map<String, String> relevant = new TreeMap<>();
    options.forEach(
        (key, value) -> {
          if (key.startsWith("lock.")
              || key.startsWith("lock-")
              || key.equals("uri")
              || key.startsWith("hive.")
              || key.startsWith("hadoop.")) {
            relevant.put(key, value);
          }
        });
    return relevant.toString();
  }
}
