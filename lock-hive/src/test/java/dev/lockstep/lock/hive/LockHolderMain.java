package dev.lockstep.lock.hive;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A lock holder in its own JVM, for the cross-process tests: {@code increments N FILE KEY k=v...}
 * appends N lines under the lock, each the holder's fencing token, after checking that the file's
 * last token is smaller (so a second holder inside, or a token going backwards, shows in the file).
 * Prints {@code DONE} and exits 0, or prints the failure and exits 1.
 */
public final class LockHolderMain {

  private LockHolderMain() {}

  public static void main(String[] args) throws Exception {
    int increments = Integer.parseInt(args[1]);
    Path file = Path.of(args[2]);
    String key = args[3];
    Map<String, String> options = new HashMap<>();
    for (int i = 4; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      options.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    try (LockService service = LockServiceDiscovery.open(options)) {
      for (int i = 0; i < increments; i++) {
        Lease lease =
            service
                .acquire(key, Duration.ofMinutes(2))
                .orElseThrow(() -> new IllegalStateException("acquire timed out"));
        try {
          lease.ensureHeld();
          List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
          long last = lines.isEmpty() ? 0 : Long.parseLong(lines.get(lines.size() - 1).trim());
          if (last >= lease.fencingToken()) {
            throw new IllegalStateException("token " + lease.fencingToken() + " after " + last);
          }
          Thread.sleep(5); // widen the window in which a second holder would interleave
          lines.add(Long.toString(lease.fencingToken()));
          Files.write(file, lines, StandardCharsets.UTF_8);
          lease.ensureHeld();
        } finally {
          lease.close();
        }
      }
      System.out.println("DONE");
    } catch (Throwable t) {
      t.printStackTrace(System.out);
      System.out.flush();
      Runtime.getRuntime().halt(1);
    }
    Runtime.getRuntime().halt(0);
  }
}
