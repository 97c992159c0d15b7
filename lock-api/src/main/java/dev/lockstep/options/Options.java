package dev.lockstep.options;

import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An immutable view of catalog options with typed getters. Every getter that fails names the key,
 * the value and what is accepted. {@link #toString()} masks secrets: keys containing {@code
 * secret}, {@code password}, {@code token} or {@code credential} are never printed.
 */
public final class Options {

  private final Map<String, String> values;

  private Options(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
  }

  public static Options of(Map<String, String> values) {
    Objects.requireNonNull(values, "values");
    return new Options(values);
  }

  public static Options empty() {
    return new Options(Map.of());
  }

  /** The raw map, unmodifiable. */
  public Map<String, String> asMap() {
    return values;
  }

  public boolean contains(String key) {
    return values.containsKey(key);
  }

  /** The value, or {@code null} when absent. */
  public String get(String key) {
    return values.get(key);
  }

  public String get(String key, String defaultValue) {
    String value = values.get(key);
    return value == null ? defaultValue : value;
  }

  /**
   * The value of a required key.
   *
   * @throws IllegalArgumentException when absent or blank, naming the key and what it is for
   */
  public String getRequired(String key, String whatItIsFor) {
    String value = values.get(key);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("Option '" + key + "' is required: " + whatItIsFor + ".");
    }
    return value;
  }

  /**
   * The value of a typed option: its key, else a fallback key, else its default; the value is
   * parsed by the one parser ({@link ValueParsers}) and checked against the option's requirements.
   *
   * @throws IllegalArgumentException naming the key, the value and the fix
   */
  public <T> T get(ConfigOption<T> option) {
    return option.read(values);
  }

  /** The value of {@code option}, or {@code defaultValue} when it is absent. */
  public <T> T get(ConfigOption<T> option, T defaultValue) {
    T value = option.read(values);
    return option.keyIn(values) == null ? defaultValue : value;
  }

  public boolean getBoolean(String key, boolean defaultValue) {
    return get(ConfigOption.key(key).booleanType().defaultValue(defaultValue));
  }

  public int getInt(String key, int defaultValue) {
    return get(ConfigOption.key(key).intType().defaultValue(defaultValue));
  }

  public long getLong(String key, long defaultValue) {
    return get(ConfigOption.key(key).longType().defaultValue(defaultValue));
  }

  public Duration getDuration(String key, Duration defaultValue) {
    return get(ConfigOption.key(key).durationType().noDefaultValue(), defaultValue);
  }

  /**
   * A size in bytes ({@code 64 mb}, {@code 64MiB}, {@code 1024}); see {@link ValueParsers#size}.
   */
  public long getSize(String key, long defaultValue) {
    return get(ConfigOption.key(key).sizeType().defaultValue(defaultValue));
  }

  /** The options whose keys start with {@code prefix}, with the prefix removed. */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> out = new TreeMap<>();
    values.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            out.put(k.substring(prefix.length()), v);
          }
        });
    return out;
  }

  /** Whether a key names a secret that must never be printed. */
  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.contains("secret")
        || k.contains("password")
        || k.contains("token")
        || k.contains("credential");
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{");
    values.forEach(
        (k, v) -> {
          if (sb.length() > 1) {
            sb.append(", ");
          }
          sb.append(k).append('=').append(isSecret(k) ? "******" : v);
        });
    return sb.append('}').toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Options && ((Options) o).values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }
}
