package dev.lockstep.options;

import java.util.Collection;

/**
 * An option key that no component reads: most often a typo that would otherwise be ignored (and a
 * misspelt {@code lock.enabled} commits without the lock asked for). The message names the key, the
 * nearest known key and where the options are documented; it is the same whether the key was caught
 * by a factory created directly from Java, by an engine's catalog, or by the command line.
 */
public final class UnknownOptionException extends IllegalArgumentException {

  private final String key;
  private final String suggestion;

  private UnknownOptionException(String message, String key, String suggestion) {
    super(message);
    this.key = key;
    this.suggestion = suggestion;
  }

  /** A key inside {@code set}'s namespace that {@code set} does not read. */
  static UnknownOptionException inNamespace(String key, OptionSet set) {
    String nearest = nearest(key, set.keys());
    String namespace = set.namespaceOf(key);
    String passes =
        set.passThrough().isEmpty()
            ? ""
            : " (keys under " + String.join(", ", set.passThrough()) + " pass through)";
    return new UnknownOptionException(
        "Unknown option '"
            + key
            + "'."
            + didYouMean(nearest)
            + " Keys under '"
            + namespace
            + "' are read by "
            + set.owner()
            + passes
            + "; see the options table in "
            + set.documentation()
            + ".",
        key,
        nearest);
  }

  /** A key outside every namespace that no component on the class path reads. */
  static UnknownOptionException unclaimed(
      String key, Collection<String> known, Collection<String> passThrough) {
    String nearest = nearest(key, known);
    String passes =
        passThrough.isEmpty()
            ? ""
            : " Keys under " + String.join(", ", passThrough) + " pass through unchecked.";
    return new UnknownOptionException(
        "Unknown option '"
            + key
            + "'."
            + didYouMean(nearest)
            + " No component on the class path reads it."
            + passes
            + " See the options tables in the module READMEs.",
        key,
        nearest);
  }

  /** The unknown key. */
  public String key() {
    return key;
  }

  /** The nearest known key, or {@code null} when none is known. */
  public String suggestion() {
    return suggestion;
  }

  private static String didYouMean(String nearest) {
    return nearest == null ? "" : " Did you mean '" + nearest + "'?";
  }

  /** The key of {@code candidates} with the smallest edit distance to {@code key}. */
  static String nearest(String key, Collection<String> candidates) {
    return EditDistance.nearest(key, candidates, Integer.MAX_VALUE).orElse(null);
  }
}
