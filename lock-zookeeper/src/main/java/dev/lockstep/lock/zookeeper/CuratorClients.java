package dev.lockstep.lock.zookeeper;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The Curator clients of one process, one per connect string and connection settings, shared by
 * every {@link ZooKeeperLockService} that uses them and closed with the last user.
 *
 * <p>Two services with the same connect string but different session timeouts, retry settings or
 * credentials get different clients: a session's timeout and identity are fixed when it is opened,
 * so sharing one would silently give a service settings it did not ask for.
 *
 * <p>{@link #PROCESS} is the registry every production service uses. Tests create their own
 * registries to stand for separate processes.
 */
final class CuratorClients {

  /** The registry of this process. */
  static final CuratorClients PROCESS = new CuratorClients();

  private final Map<Key, SharedCuratorClient> clients = new HashMap<>();

  /**
   * Returns the shared client for these settings, starting it on first use, and counts one more
   * user. Every call must be matched by one {@link #release}.
   */
  synchronized SharedCuratorClient retain(ZooKeeperLockOptions options) {
    Key key = Key.of(options);
    SharedCuratorClient client = clients.get(key);
    if (client == null) {
      client = SharedCuratorClient.start(options);
      clients.put(key, client);
    }
    client.users++;
    return client;
  }

  /** Counts one user less; the last one closes the client. */
  synchronized void release(SharedCuratorClient client) {
    if (client.users <= 0) {
      return;
    }
    client.users--;
    if (client.users == 0) {
      clients.values().remove(client);
      client.close();
    }
  }

  /** How many clients are open, for tests. */
  synchronized int openClients() {
    return clients.size();
  }

  /** What a session is made of. {@link #toString()} never prints the password. */
  private record Key(
      String connectString,
      long sessionTimeoutMs,
      long connectionTimeoutMs,
      long retryBaseSleepMs,
      long retryMaxSleepMs,
      int retryMaxAttempts,
      String authUser,
      String authPassword) {

    static Key of(ZooKeeperLockOptions o) {
      return new Key(
          o.connectString(),
          o.sessionTimeout().toMillis(),
          o.connectionTimeout().toMillis(),
          o.retryBaseSleep().toMillis(),
          o.retryMaxSleep().toMillis(),
          o.retryMaxAttempts(),
          o.authUser(),
          o.authPassword());
    }

    @Override
    public String toString() {
      return connectString
          + (authUser == null ? "" : " as " + authUser)
          + " (session "
          + sessionTimeoutMs
          + " ms, password "
          + (Objects.isNull(authPassword) ? "none" : "******")
          + ")";
    }
  }
}
