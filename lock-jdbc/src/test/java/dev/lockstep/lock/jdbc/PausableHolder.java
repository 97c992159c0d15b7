package dev.lockstep.lock.jdbc;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A child JVM that takes a lock through {@code lock.type=jdbc} and then answers commands on stdin,
 * so that the parent can freeze it (SIGSTOP) like a long GC pause and ask it afterwards.
 *
 * <p>Arguments: the key, then {@code name=value} options. Prints {@code HELD <token>} once
 * acquired. On {@code CHECK} prints {@code STILL-HELD} or {@code LOST <message>} (from {@code
 * ensureHeld()}); on {@code CLOSE} releases, prints {@code CLOSED} and exits.
 */
public final class PausableHolder {

  private PausableHolder() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      options.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    try (LockService service = LockServiceDiscovery.open(options)) {
      Lease lease = service.acquire(args[0], Duration.ofMinutes(1)).orElseThrow();
      System.out.println("HELD " + lease.fencingToken());
      System.out.flush();
      BufferedReader commands =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String command;
      while ((command = commands.readLine()) != null) {
        if (command.equals("CHECK")) {
          try {
            lease.ensureHeld();
            System.out.println("STILL-HELD");
          } catch (LockLostException e) {
            System.out.println("LOST " + e.getMessage());
          }
        } else if (command.equals("CLOSE")) {
          lease.close();
          System.out.println("CLOSED");
          System.out.flush();
          return;
        }
        System.out.flush();
      }
    }
  }
}
