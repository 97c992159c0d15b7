package dev.lockstep.options;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Every declared option of a set of components: the one place where unknown keys are found. The
 * command line, an engine's catalog and the conformance kit check the options a user gave with
 * {@link #check(Map)}; a component created directly checks its own namespace with {@link
 * OptionSet#checkNamespace(Map)}. Both throw the same {@link UnknownOptionException} for the same
 * key: a key inside a component's namespace is reported by that component's {@link OptionSet}; a
 * key outside every namespace that no component reads is reported with the nearest key of all.
 *
 * <p>Build one from the class path with {@code dev.lockstep.catalog.CatalogOptions}.
 */
public final class OptionCatalog {

  private final List<OptionSet> sets;

  private OptionCatalog(List<OptionSet> sets) {
    this.sets = List.copyOf(sets);
  }

  public static OptionCatalog of(Collection<OptionSet> sets) {
    return new OptionCatalog(new ArrayList<>(sets));
  }

  /** The declarations, in the order given. */
  public List<OptionSet> sets() {
    return sets;
  }

  /** Every key some component reads, main and fallback keys. */
  public TreeSet<String> keys() {
    TreeSet<String> keys = new TreeSet<>();
    sets.forEach(s -> keys.addAll(s.keys()));
    return keys;
  }

  /** Every pass-through prefix. */
  public TreeSet<String> passThrough() {
    TreeSet<String> prefixes = new TreeSet<>();
    sets.forEach(s -> prefixes.addAll(s.passThrough()));
    return prefixes;
  }

  /** Whether some component reads {@code key}. */
  public boolean knows(String key) {
    return sets.stream().anyMatch(s -> s.knows(key));
  }

  /** Whether some component marks {@code key} as a secret. */
  public boolean isSecret(String key) {
    return sets.stream().anyMatch(s -> s.isSecret(key)) || Options.isSecret(key);
  }

  /**
   * Refuses the first key of {@code given} that no component reads.
   *
   * @throws UnknownOptionException naming the key and the nearest known key; for a key in a
   *     component's namespace, exactly the exception that component's own check throws
   */
  public void check(Map<String, String> given) {
    for (String key : new TreeSet<>(given.keySet())) {
      if (knows(key)) {
        continue;
      }
      OptionSet owner = null;
      String namespace = null;
      for (OptionSet set : sets) {
        String ns = set.namespaceOf(key);
        if (ns != null && (namespace == null || ns.length() > namespace.length())) {
          owner = set;
          namespace = ns;
        }
      }
      if (owner != null) {
        throw UnknownOptionException.inNamespace(key, owner);
      }
      throw UnknownOptionException.unclaimed(key, keys(), passThrough());
    }
  }
}
