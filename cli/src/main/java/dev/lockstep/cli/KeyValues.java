package dev.lockstep.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Parses repeated {@code -o key=value} arguments. */
final class KeyValues {

  private KeyValues() {}

  static Map<String, String> parse(List<String> pairs) {
    Map<String, String> out = new LinkedHashMap<>();
    if (pairs == null) {
      return out;
    }
    for (String pair : pairs) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new UserError("option '-o " + pair + "' is not key=value; write for example"
            + " -o lock.enabled=true");
      }
      out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return out;
  }
}
