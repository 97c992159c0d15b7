package dev.lockstep.options;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Renders an {@link OptionSet} as the Markdown options table of a module README, and keeps the
 * README in step: the table sits between {@code <!-- options:begin NAME -->} and {@code <!--
 * options:end NAME -->}, everything else is hand-written.
 *
 * <p>Each module has a test that calls {@link #verify} and fails when a table is stale; run it with
 * {@code -D}{@value #REGENERATE_PROPERTY}{@code =true} to rewrite the tables instead (see
 * CONTRIBUTING in the root README).
 */
public final class OptionsTable {

  /** System property that makes {@link #verify} rewrite stale tables instead of failing. */
  public static final String REGENERATE_PROPERTY = "lockstep.options.regenerate";

  private OptionsTable() {}

  /** The table: key (with fallback keys), default, meaning (secrets marked). */
  public static String render(OptionSet set) {
    StringBuilder sb = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
    for (ConfigOption<?> option : set.options()) {
      sb.append("| `").append(option.key()).append('`');
      if (!option.fallbackKeys().isEmpty()) {
        sb.append(" (also `").append(String.join("`, `", option.fallbackKeys())).append("`)");
      }
      String def = option.defaultText();
      sb.append(" | ")
          .append(option.hasDefaultText() || !option.hasDefault() ? def : "`" + def + "`");
      sb.append(" | ").append(option.description().replace("|", "\\|"));
      if (option.isSecret()
          && !option.description().toLowerCase(java.util.Locale.ROOT).contains("**secret**")) {
        sb.append(" **Secret**: never logged.");
      }
      sb.append(" |\n");
    }
    return sb.toString();
  }

  /**
   * {@code text} with the table named {@code name} replaced by {@code set}'s rendering.
   *
   * @throws IllegalArgumentException when the markers are missing
   */
  public static String replace(String text, String name, OptionSet set) {
    String begin = "<!-- options:begin " + name + " -->\n";
    String end = "<!-- options:end " + name + " -->";
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException(
          "The README has no options table '"
              + name
              + "': add the"
              + " lines '"
              + begin.strip()
              + "' and '"
              + end
              + "' where it goes.");
    }
    return text.substring(0, from + begin.length()) + render(set) + text.substring(to);
  }

  /**
   * Checks that {@code readme}'s table {@code name} is {@code set}'s rendering; with the system
   * property {@value #REGENERATE_PROPERTY}{@code =true}, rewrites it instead.
   *
   * @throws AssertionError when the table is stale, naming the command that regenerates it
   */
  public static void verify(Path readme, String name, OptionSet set) throws IOException {
    String text = Files.readString(readme, StandardCharsets.UTF_8);
    String expected = replace(text, name, set);
    if (expected.equals(text)) {
      return;
    }
    if (Boolean.getBoolean(REGENERATE_PROPERTY)) {
      Files.writeString(readme, expected, StandardCharsets.UTF_8);
      return;
    }
    throw new AssertionError(
        "The options table '"
            + name
            + "' in "
            + readme.toAbsolutePath()
            + " is stale: it differs from the options the code declares. Regenerate it with"
            + " ./mvnw -B -o -q -pl <module> -am verify -Dtest='*OptionsTable*'"
            + " -Dsurefire.failIfNoSpecifiedTests=false -D"
            + REGENERATE_PROPERTY
            + "=true");
  }
}
