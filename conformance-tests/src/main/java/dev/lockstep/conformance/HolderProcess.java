package dev.lockstep.conformance;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The child JVM of the holder-death check: {@code HolderProcess <options-file> <key>
 * <wait-millis>}. Opens the lock named by {@code lock.type}, acquires the key, prints {@code HELD
 * <fencing token>} and halts at once, holding it. Exit code 2 and a message on any failure.
 */
public final class HolderProcess {

  static final String HELD = "HELD ";

  private HolderProcess() {}

  public static void main(String[] args) {
    try {
      Properties properties = new Properties();
      try (InputStream in = Files.newInputStream(java.nio.file.Path.of(args[0]))) {
        properties.load(in);
      }
      Map<String, String> options = new HashMap<>();
      properties.stringPropertyNames().forEach(k -> options.put(k, properties.getProperty(k)));
      LockService lock = LockServiceDiscovery.open(options);
      Optional<Lease> lease = lock.acquire(args[1], Duration.ofMillis(Long.parseLong(args[2])));
      if (lease.isEmpty()) {
        System.out.println("Could not acquire " + args[1]);
        System.out.flush();
        Runtime.getRuntime().halt(2);
      }
      System.out.println(HELD + lease.get().fencingToken());
      System.out.flush();
      Runtime.getRuntime().halt(0);
    } catch (Throwable t) {
      System.out.println("Holder failed: " + t);
      t.printStackTrace(System.out);
      System.out.flush();
      Runtime.getRuntime().halt(2);
    }
  }
}
