package dev.lockstep.catalog;

import dev.lockstep.fs.FileIOLoader;
import dev.lockstep.lock.CatalogLockFactory;
import dev.lockstep.options.OptionCatalog;
import dev.lockstep.options.OptionSet;
import dev.lockstep.options.OptionsProvider;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/**
 * The catalog-level option check: every component on the class path that declares options (every
 * {@link FileIOLoader}, every {@link CatalogLockFactory}, and every {@link OptionsProvider}
 * service: the commit protocol, the engine, the conformance kit), found with {@link ServiceLoader}.
 *
 * <p>Use it where all catalog options arrive together (the command line, an engine's catalog),
 * never inside one factory: a factory sees other components' keys too and checks only its
 * namespace.
 */
public final class CatalogOptions {

  private CatalogOptions() {}

  /** Every declaration found through {@code classLoader}, each component once. */
  public static OptionCatalog onClassPath(ClassLoader classLoader) {
    Map<String, OptionSet> byClass = new TreeMap<>();
    Set<Object> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    List<Class<? extends OptionsProvider>> services =
        List.of(OptionsProvider.class, FileIOLoader.class, CatalogLockFactory.class);
    for (Class<? extends OptionsProvider> service : services) {
      for (OptionsProvider provider : ServiceLoader.load(service, classLoader)) {
        if (seen.add(provider)) {
          byClass.putIfAbsent(provider.getClass().getName(), provider.options());
        }
      }
    }
    return OptionCatalog.of(new ArrayList<>(byClass.values()));
  }

  /** {@link #onClassPath(ClassLoader)} with the context class loader (or this class's loader). */
  public static OptionCatalog onClassPath() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    return onClassPath(loader != null ? loader : CatalogOptions.class.getClassLoader());
  }

  /**
   * Refuses the first catalog option no component on the class path reads.
   *
   * @throws dev.lockstep.options.UnknownOptionException naming the key and the nearest known key
   */
  public static void check(Map<String, String> options) {
    onClassPath().check(options);
  }
}
