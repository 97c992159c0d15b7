package dev.lockstep.options;

import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An immutable view of catalog options with typed getters. Every getter that fails names the key, the
 * value and what is accepted. {@link #toString()} masks secrets: keys containing {@code secret},
 * {@code password}, {@code token} or {@code credential} are never printed.
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

  public boolean getBoolean(String key, boolean defaultValue) {
    String value = values.get(key);
    if (value == null) {
      return defaultValue;
    }
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw new IllegalArgumentException(
            "Option '" + key + "' is '" + value + "'; write true or false.");
    }
  }

  public int getInt(String key, int defaultValue) {
    String value = values.get(key);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Option '" + key + "' is '" + value + "'; write a whole number.", e);
    }
  }

  public long getLong(String key, long defaultValue) {
    String value = values.get(key);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Option '" + key + "' is '" + value + "'; write a whole number.", e);
    }
  }

  public Duration getDuration(String key, Duration defaultValue) {
    String value = values.get(key);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Option '" + key + "': " + e.getMessage(), e);
    }
  }

  /** The options whose keys start with {@code prefix}, with the prefix removed. */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> out = new TreeMap<>();
    values.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        out.put(k.substring(prefix.length()), v);
      }
    });
    return out;
  }

  /** Whether a key names a secret that must never be printed. */
  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.contains("secret") || k.contains("password") || k.contains("token")
        || k.contains("credential");
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{");
    values.forEach((k, v) -> {
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
