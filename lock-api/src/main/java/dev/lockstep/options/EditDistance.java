package dev.lockstep.options;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The Levenshtein distance between two strings, for "did you mean" suggestions (an unknown option
 * key, a misspelt lock identifier): one implementation for every module.
 */
public final class EditDistance {

  private EditDistance() {}

  /** The number of single-character insertions, deletions and substitutions from a to b. */
  public static int between(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] =
            Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  /**
   * The candidate nearest to {@code word} (case-insensitive; ties go to the first in sorted order),
   * when it is at most {@code maxDistance} away.
   */
  public static Optional<String> nearest(
      String word, Collection<String> candidates, int maxDistance) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    String lower = word.toLowerCase(Locale.ROOT);
    for (String candidate : List.copyOf(candidates).stream().sorted().toList()) {
      int d = between(lower, candidate.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= maxDistance ? Optional.of(best) : Optional.empty();
  }
}
