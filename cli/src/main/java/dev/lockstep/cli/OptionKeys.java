package dev.lockstep.cli;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Knows every option key of Lockstep and its backends, so that a misspelt key is refused with the
 * nearest known key instead of being silently ignored (which, for {@code lock.enabled}, would commit
 * without the lock the user asked for).
 *
 * <p>Keys are read from the public {@code String} constants of each module's options class. Keys under
 * a pass-through prefix ({@code hadoop.}, {@code hive.}, {@code metastore.}) go to a third-party
 * configuration and are not checked here.
 */
final class OptionKeys {

  private static final List<String> OPTION_CLASSES = List.of(
      "dev.lockstep.lock.LockOptions",
      "dev.lockstep.commit.CommitOptions",
      "dev.lockstep.engine.table.CoreOptions",
      "dev.lockstep.engine.maintenance.MaintenanceOptions",
      "dev.lockstep.conformance.ConformanceSettings",
      "dev.lockstep.lock.zookeeper.ZooKeeperLockOptions",
      "dev.lockstep.lock.jdbc.JdbcLockOptions",
      "dev.lockstep.lock.hive.HiveLockOptions",
      "dev.lockstep.fs.s3.S3Options",
      "dev.lockstep.fs.oss.OssOptions",
      "dev.lockstep.fs.hdfs.HadoopOptions");

  private static final List<String> PASS_THROUGH = List.of("hadoop.", "hive.", "metastore.",
      "fs.scheme-alias.", "lock.jdbc.property.");

  /** What an option key looks like: lower-case words joined by '.', '-' or '_' (OSS keys use camelCase). */
  private static final Pattern KEY = Pattern.compile("[a-z][a-zA-Z0-9]*([.\\-_][a-zA-Z0-9]+)+");

  private static final TreeSet<String> KNOWN = load();

  private OptionKeys() {}

  private static TreeSet<String> load() {
    TreeSet<String> keys = load(OPTION_CLASSES);
    keys.add("uri");
    keys.add("warehouse");
    keys.addAll(List.of("bucket", "write-only"));
    return keys;
  }

  private static TreeSet<String> load(List<String> classes) {
    TreeSet<String> keys = new TreeSet<>();
    for (String className : classes) {
      Class<?> type;
      try {
        type = Class.forName(className);
      } catch (ClassNotFoundException e) {
        continue;
      }
      for (Field field : type.getFields()) {
        int m = field.getModifiers();
        if (Modifier.isStatic(m) && Modifier.isFinal(m) && field.getType() == String.class
            && !field.getName().endsWith("_DEFAULT") && !field.getName().endsWith("PREFIX")) {
          try {
            String value = (String) field.get(null);
            if (value != null && KEY.matcher(value).matches()) {
              keys.add(value);
            }
          } catch (IllegalAccessException ignored) {
            // Public static fields are readable; nothing to add otherwise.
          }
        }
      }
    }
    return keys;
  }

  /** Whether {@code key} is stored with a table at create (engine and expiration options). */
  static boolean isTableOption(String key) {
    return TABLE_KEYS.contains(key) || key.equals("bucket") || key.equals("write-only")
        || key.equals("merge-engine");
  }

  private static final TreeSet<String> TABLE_KEYS = load(List.of(
      "dev.lockstep.engine.table.CoreOptions",
      "dev.lockstep.engine.maintenance.MaintenanceOptions"));

  /** Every known key. */
  static TreeSet<String> known() {
    return KNOWN;
  }

  /**
   * Checks every key of {@code options}.
   *
   * @throws UserError naming the first unknown key and the nearest known one
   */
  static void validate(Map<String, String> options) {
    for (String key : options.keySet()) {
      if (KNOWN.contains(key) || PASS_THROUGH.stream().anyMatch(key::startsWith)) {
        continue;
      }
      throw new UserError("unknown option '" + key + "'. Did you mean '" + nearest(key)
          + "'? Options under hadoop., hive. and metastore. pass through; see the options table in"
          + " README.md.");
    }
  }

  /** The known key with the smallest edit distance to {@code key}. */
  static String nearest(String key) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    String lower = key.toLowerCase(Locale.ROOT);
    for (String candidate : KNOWN) {
      int d = distance(lower, candidate.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return best;
  }

  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
