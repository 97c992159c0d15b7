package dev.lockstep.commit;

import java.util.Arrays;
import java.util.Locale;

/** The value of {@code commit.strategy}. */
public enum CommitStrategy {
  /** Lock when {@code lock.enabled=true}, else atomic create, else atomic rename, else refuse. */
  AUTO("auto"),
  /** Create {@code snapshot-N} if absent with the store's atomic create. No lock. */
  ATOMIC_CREATE("atomic-create"),
  /** Write a temporary file and rename it without replace. No lock. */
  RENAME("rename"),
  /**
   * Under a lease of {@code lock.type}, using the store's primitive inside the lock when it has
   * one.
   */
  LOCK("lock");

  private final String value;

  CommitStrategy(String value) {
    this.value = value;
  }

  /** The option value, for example {@code atomic-create}. */
  public String value() {
    return value;
  }

  public static CommitStrategy parse(String text) {
    String normalized = text.trim().toLowerCase(Locale.ROOT);
    for (CommitStrategy strategy : values()) {
      if (strategy.value.equals(normalized)) {
        return strategy;
      }
    }
    throw new IllegalArgumentException(
        "Option '"
            + CommitOptions.COMMIT_STRATEGY
            + "' is '"
            + text
            + "'; write one of "
            + Arrays.stream(values()).map(CommitStrategy::value).toList()
            + ".");
  }

  @Override
  public String toString() {
    return value;
  }
}
