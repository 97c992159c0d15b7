package dev.lockstep.options;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The options one component reads (a store, a lock backend, the engine, the kit), as it declares
 * them through {@link OptionsProvider#options()}.
 *
 * <p>A component may own <em>namespaces</em>: key prefixes that no one else reads ({@code
 * lock.zookeeper.}, {@code s3.}). Inside its namespaces it refuses every key it does not know
 * ({@link #checkNamespace(Map)}), with the nearest known key; outside them it ignores every key,
 * because engines hand all catalog options to every factory (Paimon gives a lock factory the whole
 * catalog's options). Keys under a <em>pass-through</em> prefix ({@code hadoop.}, {@code
 * lock.jdbc.property.}) go unchecked to a third-party configuration. Keys no component claims are
 * found by {@link OptionCatalog}, which knows every component on the class path.
 *
 * @param owner who reads these options, as a message names it ("the ZooKeeper lock")
 * @param documentation where the options table lives ("lock-zookeeper/README.md")
 * @param namespaces key prefixes only this component reads; may be empty
 * @param options the options read
 * @param passThrough key prefixes passed on unchecked
 */
public record OptionSet(
    String owner,
    String documentation,
    List<String> namespaces,
    List<ConfigOption<?>> options,
    List<String> passThrough) {

  public OptionSet {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(documentation, "documentation");
    namespaces = List.copyOf(namespaces);
    options = List.copyOf(options);
    passThrough = List.copyOf(passThrough);
  }

  /** Starts a declaration. */
  public static Builder of(String owner, String documentation) {
    return new Builder(owner, documentation);
  }

  /** A component that declares nothing (the default of {@link OptionsProvider#options()}). */
  public static OptionSet undeclared(String owner) {
    return new OptionSet(owner, "its documentation", List.of(), List.of(), List.of());
  }

  /** Collects a declaration. */
  public static final class Builder {
    private final String owner;
    private final String documentation;
    private final List<String> namespaces = new ArrayList<>();
    private final List<ConfigOption<?>> options = new ArrayList<>();
    private final List<String> passThrough = new ArrayList<>();

    private Builder(String owner, String documentation) {
      this.owner = owner;
      this.documentation = documentation;
    }

    /** Key prefixes only this component reads. */
    public Builder namespace(String... prefixes) {
      namespaces.addAll(List.of(prefixes));
      return this;
    }

    public Builder option(ConfigOption<?>... declared) {
      options.addAll(List.of(declared));
      return this;
    }

    /** Key prefixes passed unchecked to a third-party configuration. */
    public Builder passThrough(String... prefixes) {
      passThrough.addAll(List.of(prefixes));
      return this;
    }

    public OptionSet build() {
      return new OptionSet(owner, documentation, namespaces, options, passThrough);
    }
  }

  /** Every key read, main keys and fallback keys, in declaration order. */
  public Set<String> keys() {
    Set<String> keys = new LinkedHashSet<>();
    for (ConfigOption<?> option : options) {
      keys.addAll(option.keys());
    }
    return keys;
  }

  /** Whether {@code key} is read (as a key, a fallback key, or under a pass-through prefix). */
  public boolean knows(String key) {
    return keys().contains(key) || passThrough.stream().anyMatch(key::startsWith);
  }

  /** The longest namespace of this set that {@code key} falls under, or {@code null}. */
  public String namespaceOf(String key) {
    String best = null;
    for (String ns : namespaces) {
      if (key.startsWith(ns) && (best == null || ns.length() > best.length())) {
        best = ns;
      }
    }
    return best;
  }

  /** Whether {@code key} is the secret option of this set. */
  public boolean isSecret(String key) {
    return options.stream().anyMatch(o -> o.isSecret() && o.keys().contains(key));
  }

  /**
   * Refuses a key inside this set's namespaces that it does not read; ignores every other key.
   *
   * @throws UnknownOptionException naming the key and the nearest known key
   */
  public void checkNamespace(Map<String, String> given) {
    for (String key : given.keySet()) {
      if (namespaceOf(key) != null && !knows(key)) {
        throw UnknownOptionException.inNamespace(key, this);
      }
    }
  }
}
