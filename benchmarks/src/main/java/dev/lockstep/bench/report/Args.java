package dev.lockstep.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the separate benchmark entry points share (the Paimon-plugin and the Flink-sink benchmarks,
 * whose JVMs have different class paths, so this class depends on the JDK only): {@code --key
 * value} arguments and a RESULTS.md section kept between two markers.
 */
public final class Args {

  private Args() {}

  /** {@code --key value} pairs, in order. */
  public static Map<String, String> parse(String[] args) {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --key value pairs, got " + args[i]);
      }
      a.put(args[i].substring(2), args[++i]);
    }
    return a;
  }

  /** The value of {@code --key}; fails naming it when absent. */
  public static String required(Map<String, String> a, String key) {
    String v = a.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing --" + key);
    }
    return v;
  }

  /**
   * Writes {@code section} (which starts with {@code begin} and ends with {@code end}) into {@code
   * file}: in place of the text between the markers when present, appended otherwise.
   */
  public static void replaceSection(Path file, String begin, String end, String section)
      throws IOException {
    String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    int b = text.indexOf(begin);
    int e = text.indexOf(end);
    if (b >= 0 && e > b) {
      text =
          text.substring(0, b) + section + text.substring(e + end.length()).replaceFirst("^\n", "");
    } else {
      text = text + (text.endsWith("\n") || text.isEmpty() ? "\n" : "\n\n") + section;
    }
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }
}
