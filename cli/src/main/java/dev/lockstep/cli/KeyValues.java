package dev.lockstep.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code KEY=VALUE} options ({@code -o}, {@code --partition}) as picocli parsed them into a map
 * (a value without '=' is refused by picocli), with keys and values trimmed.
 */
final class KeyValues {

  private KeyValues() {}

  static Map<String, String> trimmed(Map<String, String> parsed) {
    Map<String, String> out = new LinkedHashMap<>();
    if (parsed != null) {
      parsed.forEach((k, v) -> out.put(k.trim(), v == null ? "" : v.trim()));
    }
    return out;
  }
}
