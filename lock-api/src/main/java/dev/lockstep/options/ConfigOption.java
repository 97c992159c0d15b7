package dev.lockstep.options;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One typed option: its key, how its value is parsed and printed, its default, what it means, the
 * older keys it is still read under, what a valid value is, and whether it is a secret.
 *
 * <p>Declared once as a constant next to the module's options record, then used three ways: to read
 * the value ({@link #read(Map)}, which names the key and the fix when the value is bad), to check a
 * value built in code ({@link #check(Object)}, called from the record's constructor), and to
 * describe the option ({@link OptionSet}, the README tables, the unknown-key check).
 *
 * <pre>{@code
 * ConfigOption<Duration> SESSION_TIMEOUT = ConfigOption.key("lock.zookeeper.session-timeout")
 *     .durationType().defaultValue(Duration.ofSeconds(60))
 *     .require(Requirement.positive())
 *     .withDescription("Asked of the server ...");
 * }</pre>
 *
 * <p>Instances are immutable; every {@code with...} method returns a copy.
 *
 * @param <T> the parsed type
 */
public final class ConfigOption<T> {

  /** How a value of one type is parsed and printed. */
  public record Type<T>(String name, Function<String, T> parser, Function<T, String> printer) {

    public static final Type<String> STRING = new Type<>("string", s -> s, s -> s);
    public static final Type<Boolean> BOOLEAN =
        new Type<>("boolean", ValueParsers::bool, String::valueOf);
    public static final Type<Integer> INT =
        new Type<>("int", ValueParsers::integer, String::valueOf);
    public static final Type<Long> LONG =
        new Type<>("long", ValueParsers::longInteger, String::valueOf);
    public static final Type<Double> DOUBLE =
        new Type<>("double", ValueParsers::decimal, ConfigOption::formatDecimal);
    public static final Type<Duration> DURATION =
        new Type<>("duration", ValueParsers::duration, Durations::format);

    /** A number of bytes, written with a unit: see {@link ValueParsers#size}. */
    public static final Type<Long> SIZE =
        new Type<>("size", ValueParsers::size, ValueParsers::formatSize);

    /** An enum written in lower case with '-' for '_', any case accepted. */
    public static <E extends Enum<E>> Type<E> enumType(Class<E> type) {
      E[] values = type.getEnumConstants();
      return new Type<>(
          "enum",
          text -> {
            String normalized = text.trim().toLowerCase(Locale.ROOT);
            for (E value : values) {
              if (spell(value).equals(normalized)) {
                return value;
              }
            }
            throw new IllegalArgumentException(
                "write one of " + Arrays.stream(values).map(ConfigOption::spell).toList());
          },
          ConfigOption::spell);
    }
  }

  /** A condition on a parsed value and the words that finish "it must be ...". */
  public record Requirement<T>(Predicate<? super T> test, String mustBe) {

    public static Requirement<Duration> positive() {
      return new Requirement<>(d -> !d.isNegative() && !d.isZero(), "positive");
    }

    public static Requirement<Duration> notNegative() {
      return new Requirement<>(d -> !d.isNegative(), "0 or more");
    }

    public static Requirement<Duration> atLeast(Duration min) {
      return new Requirement<>(d -> d.compareTo(min) >= 0, "at least " + Durations.format(min));
    }

    public static Requirement<Integer> atLeast(int min) {
      return new Requirement<>(i -> i >= min, "at least " + min);
    }

    public static Requirement<Integer> between(int min, int max) {
      return new Requirement<>(i -> i >= min && i <= max, "between " + min + " and " + max);
    }

    public static Requirement<Long> sizeBetween(long min, long max) {
      return new Requirement<>(
          b -> b >= min && b <= max,
          ValueParsers.formatSize(min) + " to " + ValueParsers.formatSize(max));
    }

    public static Requirement<String> oneOf(String... values) {
      List<String> allowed = List.of(values);
      return new Requirement<>(allowed::contains, "one of " + allowed);
    }
  }

  private final String key;
  private final Type<T> type;
  private final T defaultValue;
  private final String defaultText;
  private final String description;
  private final List<String> fallbackKeys;
  private final List<Requirement<? super T>> requirements;
  private final boolean secret;

  private ConfigOption(
      String key,
      Type<T> type,
      T defaultValue,
      String defaultText,
      String description,
      List<String> fallbackKeys,
      List<Requirement<? super T>> requirements,
      boolean secret) {
    this.key = key;
    this.type = type;
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.description = description;
    this.fallbackKeys = List.copyOf(fallbackKeys);
    this.requirements = List.copyOf(requirements);
    this.secret = secret;
  }

  /** Starts an option with {@code key}; pick its type next. */
  public static Builder key(String key) {
    Objects.requireNonNull(key, "key");
    return new Builder(key);
  }

  /** Picks the type of an option. */
  public static final class Builder {
    private final String key;

    private Builder(String key) {
      this.key = key;
    }

    public TypedBuilder<String> stringType() {
      return type(Type.STRING);
    }

    public TypedBuilder<Boolean> booleanType() {
      return type(Type.BOOLEAN);
    }

    public TypedBuilder<Integer> intType() {
      return type(Type.INT);
    }

    public TypedBuilder<Long> longType() {
      return type(Type.LONG);
    }

    public TypedBuilder<Double> doubleType() {
      return type(Type.DOUBLE);
    }

    public TypedBuilder<Duration> durationType() {
      return type(Type.DURATION);
    }

    /** Bytes, written with a unit ({@code 64 mb}, {@code 64MiB}). */
    public TypedBuilder<Long> sizeType() {
      return type(Type.SIZE);
    }

    public <E extends Enum<E>> TypedBuilder<E> enumType(Class<E> enumClass) {
      return type(Type.enumType(enumClass));
    }

    public <T> TypedBuilder<T> type(Type<T> type) {
      return new TypedBuilder<>(key, type);
    }
  }

  /** Sets the default of a typed option. */
  public static final class TypedBuilder<T> {
    private final String key;
    private final Type<T> type;

    private TypedBuilder(String key, Type<T> type) {
      this.key = key;
      this.type = type;
    }

    public ConfigOption<T> defaultValue(T value) {
      Objects.requireNonNull(value, "default of " + key);
      return new ConfigOption<>(key, type, value, null, "", List.of(), List.of(), false);
    }

    /** No default: absent reads as {@code null} (the reader decides what that means). */
    public ConfigOption<T> noDefaultValue() {
      return new ConfigOption<>(key, type, null, null, "", List.of(), List.of(), false);
    }
  }

  public ConfigOption<T> withDescription(String text) {
    return new ConfigOption<>(
        key, type, defaultValue, defaultText, text, fallbackKeys, requirements, secret);
  }

  /** How the default reads in documentation when it is not a constant ("trigger + 3"). */
  public ConfigOption<T> withDefaultText(String text) {
    return new ConfigOption<>(
        key, type, defaultValue, text, description, fallbackKeys, requirements, secret);
  }

  /**
   * Older or alternative keys, read when {@link #key()} is absent (the main key wins when both are
   * set). Each counts as a known key.
   */
  public ConfigOption<T> withFallbackKeys(String... keys) {
    List<String> all = new ArrayList<>(fallbackKeys);
    all.addAll(List.of(keys));
    return new ConfigOption<>(
        key, type, defaultValue, defaultText, description, all, requirements, secret);
  }

  /** A value that fails {@code requirement} is refused with "it must be ...". */
  public ConfigOption<T> require(Requirement<? super T> requirement) {
    List<Requirement<? super T>> all = new ArrayList<>(requirements);
    all.add(requirement);
    return new ConfigOption<>(
        key, type, defaultValue, defaultText, description, fallbackKeys, all, secret);
  }

  /** A value that fails {@code test} is refused with "it must be {@code mustBe}". */
  public ConfigOption<T> require(Predicate<? super T> test, String mustBe) {
    return require(new Requirement<>(test, mustBe));
  }

  /** Marks a secret: never printed, never in a message, masked in {@link Options#toString()}. */
  public ConfigOption<T> secret() {
    return new ConfigOption<>(
        key, type, defaultValue, defaultText, description, fallbackKeys, requirements, true);
  }

  public String key() {
    return key;
  }

  public Type<T> type() {
    return type;
  }

  /** The default, or {@code null} when there is none. */
  public T defaultValue() {
    return defaultValue;
  }

  public boolean hasDefault() {
    return defaultValue != null;
  }

  public String description() {
    return description;
  }

  public List<String> fallbackKeys() {
    return fallbackKeys;
  }

  public boolean isSecret() {
    return secret;
  }

  /** Whether documentation shows a text set with {@link #withDefaultText} as the default. */
  public boolean hasDefaultText() {
    return defaultText != null;
  }

  /** The default as documentation shows it: the text set, the printed value, or {@code "—"}. */
  public String defaultText() {
    if (defaultText != null) {
      return defaultText;
    }
    return defaultValue == null ? "—" : type.printer().apply(defaultValue);
  }

  /** Prints a value as an option would write it ({@code "8 min"}, {@code "64 MiB"}). */
  public String format(T value) {
    return value == null ? "null" : type.printer().apply(value);
  }

  /**
   * Parses the text given under {@code givenKey} (this key or a fallback key) and checks it.
   *
   * @throws IllegalArgumentException "Option 'key' is 'text'; write ..." (the text masked for a
   *     secret)
   */
  public T parse(String givenKey, String text) {
    T value;
    try {
      value = type.parser().apply(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Option '"
              + givenKey
              + "' is '"
              + (secret ? "******" : text)
              + "'; "
              + e.getMessage()
              + ".",
          e);
    }
    return check(givenKey, value);
  }

  /**
   * The value of this option in {@code options}: the main key, else the first fallback key set,
   * else the default. Bad values are refused naming the key used and the fix.
   */
  public T read(Map<String, String> options) {
    String used = keyIn(options);
    return used == null ? defaultValue : parse(used, options.get(used));
  }

  /** The key under which {@code options} sets this option (main key first), or {@code null}. */
  public String keyIn(Map<String, String> options) {
    if (options.get(key) != null) {
      return key;
    }
    for (String fallback : fallbackKeys) {
      if (options.get(fallback) != null) {
        return fallback;
      }
    }
    return null;
  }

  /**
   * Checks a value built in code (records call this from their constructor).
   *
   * @return {@code value}
   * @throws IllegalArgumentException "Option 'key' is value; it must be ..."
   */
  public T check(T value) {
    return check(key, value);
  }

  private T check(String givenKey, T value) {
    if (value == null) {
      return null;
    }
    for (Requirement<? super T> requirement : requirements) {
      if (!requirement.test().test(value)) {
        throw new IllegalArgumentException(
            "Option '"
                + givenKey
                + "' is "
                + (secret ? "******" : format(value))
                + "; it must be "
                + requirement.mustBe()
                + ".");
      }
    }
    return value;
  }

  /** Every key this option is read under: the main key, then the fallback keys. */
  public List<String> keys() {
    List<String> all = new ArrayList<>();
    all.add(key);
    all.addAll(fallbackKeys);
    return all;
  }

  @Override
  public String toString() {
    return key + " (" + type.name() + ", default " + defaultText() + ")";
  }

  private static String spell(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static String formatDecimal(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? String.valueOf((long) value)
        : String.valueOf(value);
  }
}
