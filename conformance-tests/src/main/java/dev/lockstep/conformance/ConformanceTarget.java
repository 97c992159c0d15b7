package dev.lockstep.conformance;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.options.Options;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What is under test: a store root URI, catalog options, the declared capabilities and, optionally,
 * programmatic factories for the store, the lock and the holder-death check. Immutable.
 *
 * <p>Built with {@link #builder()} or read from a properties file ({@link #fromProperties}):
 *
 * <pre>
 * uri=s3://bucket/conformance          # a fresh, empty test prefix; never a table location
 * capabilities.store-basics=true
 * capabilities.atomic-create=true
 * capabilities.atomic-rename=false
 * capabilities.lock=false
 * s3.endpoint=http://127.0.0.1:9000     # every other key is a catalog option
 * option.uri=thrift://hms:9083          # "option." passes a key the kit itself uses (here: uri)
 * </pre>
 *
 * <p>Nothing is validated at build time beyond the syntax: each check validates what it needs, so
 * that a missing declaration or an unconfigured target fails the checks that need it, by name, with
 * the fix.
 */
public final class ConformanceTarget {

  /** Properties key of the store root URI. */
  public static final String URI_KEY = "uri";

  /** Properties key prefix that passes the rest of the key as an option, for keys the kit uses. */
  public static final String OPTION_PREFIX = "option.";

  private final String uri;
  private final Map<String, String> options;
  private final Map<Capability, Boolean> declared;
  private final StoreFactory storeFactory;
  private final LockFactory lockFactory;
  private final HolderKiller holderKiller;
  private final String source;

  private ConformanceTarget(Builder b) {
    this.uri = b.uri;
    Map<String, String> opts = new TreeMap<>(b.options);
    if (b.lockType != null) {
      opts.put(LockOptions.LOCK_TYPE, b.lockType);
    }
    this.options = Collections.unmodifiableMap(opts);
    this.declared = Collections.unmodifiableMap(new EnumMap<>(b.declared));
    this.storeFactory = b.storeFactory;
    this.lockFactory = b.lockFactory;
    this.holderKiller = b.holderKiller;
    this.source = b.source;
  }

  /** A builder for a target described in code. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads a target from a properties file (UTF-8): {@code uri}, {@code
   * capabilities.<id>=true|false}, {@code lock.type}, and every other key as a catalog option.
   *
   * @throws IOException when the file cannot be read
   * @throws IllegalArgumentException when a capability key or value is not understood, naming the
   *     key
   */
  public static ConformanceTarget fromProperties(java.nio.file.Path file) throws IOException {
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(file);
        java.io.Reader reader =
            new java.io.InputStreamReader(in, java.nio.charset.StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new java.io.FileNotFoundException(
          "The conformance properties file "
              + file
              + " does not exist. Write one with 'uri=...' and 'capabilities.<id>=true|false' (see"
              + " the conformance-tests README).");
    }
    Builder builder = builder().source(file.toString());
    for (String key : new java.util.TreeSet<>(properties.stringPropertyNames())) {
      String value = properties.getProperty(key).trim();
      if (key.equals(URI_KEY)) {
        builder.uri(value);
      } else if (key.startsWith(Capability.PROPERTY_PREFIX)) {
        Capability capability;
        try {
          capability = Capability.fromId(key.substring(Capability.PROPERTY_PREFIX.length()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(file + ": key '" + key + "': " + e.getMessage(), e);
        }
        if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
          throw new IllegalArgumentException(
              file + ": key '" + key + "' is '" + value + "'; write true or false.");
        }
        builder.declare(capability, Boolean.parseBoolean(value.toLowerCase(java.util.Locale.ROOT)));
      } else if (key.startsWith(OPTION_PREFIX)) {
        builder.option(key.substring(OPTION_PREFIX.length()), value);
      } else {
        builder.option(key, value);
      }
    }
    return builder.build();
  }

  /** The store root URI, or {@code null} when none was given. */
  public String uri() {
    return uri;
  }

  /** The catalog options (store, lock and {@code conformance.*} options), unmodifiable. */
  public Map<String, String> options() {
    return options;
  }

  /** The {@code lock.type}, or {@code null}. */
  public String lockType() {
    return LockOptions.from(options).type();
  }

  /** The declaration of {@code capability}: empty when it was not declared at all. */
  public Optional<Boolean> declared(Capability capability) {
    return Optional.ofNullable(declared.get(capability));
  }

  /** Every declaration made, unmodifiable. */
  public Map<Capability, Boolean> declarations() {
    return declared;
  }

  /** Where the target came from (a file name), or {@code null} for a builder without one. */
  public String source() {
    return source;
  }

  /** The kit's own settings ({@code conformance.*} options), parsed. */
  public ConformanceSettings settings() {
    return ConformanceSettings.from(options);
  }

  /** Whether a lock can be opened: a lock factory was given, or {@code lock.type} is set. */
  public boolean hasLock() {
    return lockFactory != null || lockType() != null;
  }

  /** Whether a store can be opened: a store factory was given, or a URI is set. */
  public boolean hasStore() {
    return storeFactory != null || uri != null;
  }

  /**
   * Opens a new client of the store under test.
   *
   * @throws IllegalStateException when neither a URI nor a store factory was given
   */
  public FileIO openStore() throws IOException {
    if (storeFactory != null) {
      return Objects.requireNonNull(storeFactory.open(), "the store factory returned null");
    }
    if (uri == null) {
      throw new IllegalStateException(
          "The conformance target has no store: set '"
              + URI_KEY
              + "' to a fresh, empty test directory or prefix"
              + where()
              + ".");
    }
    return FileIODiscovery.open(dev.lockstep.fs.Path.of(uri), options);
  }

  /**
   * Opens a new client of the lock service under test.
   *
   * @throws IllegalStateException when neither {@code lock.type} nor a lock factory was given
   */
  public LockService openLock() throws IOException {
    if (lockFactory != null) {
      return Objects.requireNonNull(lockFactory.open(), "the lock factory returned null");
    }
    if (lockType() == null) {
      throw new IllegalStateException(
          "The conformance target has no lock: set '"
              + LockOptions.LOCK_TYPE
              + "' and the backend's lock.<type>.* options"
              + where()
              + ".");
    }
    return LockServiceDiscovery.open(options);
  }

  /** The holder killer: the programmatic one, or a child JVM that acquires and halts. */
  public HolderKiller holderKiller() {
    return holderKiller != null ? holderKiller : new ChildProcessHolderKiller(this);
  }

  /** Whether a programmatic holder killer was given. */
  public boolean hasCustomHolderKiller() {
    return holderKiller != null;
  }

  private String where() {
    return source == null ? "" : " in " + source;
  }

  /** A description safe to print: secrets are masked. */
  @Override
  public String toString() {
    return "ConformanceTarget{uri="
        + uri
        + ", declared="
        + declared
        + ", options="
        + Options.of(options)
        + (source == null ? "" : ", source=" + source)
        + "}";
  }

  /** Builds a {@link ConformanceTarget}. */
  public static final class Builder {
    private String uri;
    private final Map<String, String> options = new TreeMap<>();
    private final Map<Capability, Boolean> declared = new EnumMap<>(Capability.class);
    private String lockType;
    private StoreFactory storeFactory;
    private LockFactory lockFactory;
    private HolderKiller holderKiller;
    private String source;

    private Builder() {}

    /** The store root: a fresh, empty test directory or prefix (each check uses a sub-path). */
    public Builder uri(String uri) {
      this.uri = Objects.requireNonNull(uri, "uri");
      return this;
    }

    /** Adds catalog options (store, lock and {@code conformance.*} options). */
    public Builder options(Map<String, String> options) {
      this.options.putAll(options);
      return this;
    }

    /** Adds one catalog option. */
    public Builder option(String key, String value) {
      this.options.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Declares each of {@code capabilities} present; declare the rest absent explicitly. */
    public Builder declare(Capability... capabilities) {
      Arrays.stream(capabilities).forEach(c -> declared.put(c, true));
      return this;
    }

    /** Declares {@code capability} present or absent. */
    public Builder declare(Capability capability, boolean present) {
      declared.put(Objects.requireNonNull(capability, "capability"), present);
      return this;
    }

    /** The {@code lock.type} (also settable as an option). */
    public Builder lockType(String lockType) {
      this.lockType = lockType;
      return this;
    }

    /** Opens the store programmatically instead of through {@code FileIODiscovery}. */
    public Builder storeFactory(StoreFactory storeFactory) {
      this.storeFactory = storeFactory;
      return this;
    }

    /** Opens the lock programmatically instead of through {@code LockServiceDiscovery}. */
    public Builder lockFactory(LockFactory lockFactory) {
      this.lockFactory = lockFactory;
      return this;
    }

    /** Kills a lock holder programmatically instead of in a child JVM. */
    public Builder holderKiller(HolderKiller holderKiller) {
      this.holderKiller = holderKiller;
      return this;
    }

    /** Where this description came from, shown in error messages and reports. */
    public Builder source(String source) {
      this.source = source;
      return this;
    }

    public ConformanceTarget build() {
      return new ConformanceTarget(this);
    }
  }
}
