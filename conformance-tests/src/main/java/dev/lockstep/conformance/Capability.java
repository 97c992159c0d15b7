package dev.lockstep.conformance;

import java.util.Arrays;
import java.util.Locale;

/**
 * What a backend may declare. Every capability must be declared explicitly, {@code true} or {@code
 * false}: an undeclared capability fails the suite instead of counting as "false" (the flaw of
 * Hadoop's contract options). The commit protocol has no capability: it is always checked, with
 * whichever strategies the declared capabilities allow.
 */
public enum Capability {
  /** Read-after-write, overwrite, delete, list, missing-file errors, large objects, odd names. */
  STORE_BASICS("store-basics"),
  /** The store implements {@link dev.lockstep.fs.SupportsAtomicCreate} and it is truly atomic. */
  ATOMIC_CREATE("atomic-create"),
  /** The store implements {@link dev.lockstep.fs.SupportsAtomicRename} and it is truly atomic. */
  ATOMIC_RENAME("atomic-rename"),
  /** A {@link dev.lockstep.lock.LockService} ({@code lock.type}) keeps the lock contract. */
  LOCK("lock");

  /** The properties-file key prefix: {@code capabilities.<id>=true|false}. */
  public static final String PROPERTY_PREFIX = "capabilities.";

  private final String id;

  Capability(String id) {
    this.id = id;
  }

  /** The short name used in properties files and reports, for example {@code atomic-create}. */
  public String id() {
    return id;
  }

  /** The properties-file key that declares this capability. */
  public String propertyKey() {
    return PROPERTY_PREFIX + id;
  }

  /**
   * The capability with this id.
   *
   * @throws IllegalArgumentException naming the ids that exist
   */
  public static Capability fromId(String id) {
    String normalized = id.trim().toLowerCase(Locale.ROOT);
    for (Capability capability : values()) {
      if (capability.id.equals(normalized)) {
        return capability;
      }
    }
    throw new IllegalArgumentException(
        "Unknown capability '"
            + id
            + "'; declare one of "
            + Arrays.stream(values()).map(Capability::id).toList()
            + ".");
  }

  @Override
  public String toString() {
    return id;
  }
}
