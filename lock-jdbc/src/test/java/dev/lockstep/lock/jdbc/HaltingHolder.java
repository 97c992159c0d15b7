package dev.lockstep.lock.jdbc;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A child JVM that takes a lock through {@code lock.type=jdbc}, holds it while its heartbeat
 * renews, then halts without releasing: no finally block, no shutdown hook.
 *
 * <p>Arguments: the key, the milliseconds to hold, then {@code name=value} options. Prints {@code
 * HELD <token>} once acquired and {@code HALT} just before halting.
 */
public final class HaltingHolder {

  private HaltingHolder() {}

  public static void main(String[] args) throws Exception {
    String key = args[0];
    long holdMillis = Long.parseLong(args[1]);
    Map<String, String> options = new HashMap<>();
    for (int i = 2; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      options.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    LockService service = LockServiceDiscovery.open(options);
    Lease lease = service.acquire(key, Duration.ofMinutes(1)).orElseThrow();
    System.out.println("HELD " + lease.fencingToken());
    System.out.flush();
    Thread.sleep(holdMillis);
    lease.ensureHeld();
    System.out.println("HALT");
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }
}
