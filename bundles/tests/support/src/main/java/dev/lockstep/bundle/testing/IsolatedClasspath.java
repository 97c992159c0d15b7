package dev.lockstep.bundle.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The class path of an engine that a user dropped bundles into, in a {@link URLClassLoader} whose
 * parent is the platform class loader: nothing of the test's own class path is visible in it.
 *
 * <p>Entries are searched in the order they were added. A test adds, in this order: the engine's
 * own libraries (Hadoop, Hive, when the bundle expects them), the conflicting versions of common
 * libraries ({@link #conflicts()}), the engine's SLF4J, the bundles, and the smoke. The paths come
 * from system properties that the build sets ({@code lockstep.bundle.*}).
 */
public final class IsolatedClasspath {

  /** The smoke's class, compiled against lock-api only. */
  public static final String SMOKE_CLASS = "dev.lockstep.bundle.smoke.LockAndCommitSmoke";

  private final List<Path> entries = new ArrayList<>();

  /** A system property the build sets; missing means the test runs outside Maven. */
  public static String required(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank() || value.startsWith("${")) {
      throw new IllegalStateException(
          "System property '"
              + property
              + "' is not set ("
              + value
              + "). Run the bundle tests through Maven: ./mvnw -B -pl bundles/<bundle> -am verify");
    }
    return value;
  }

  /** An existing file named by a system property the build sets. */
  public static Path requiredFile(String property) {
    Path path = Path.of(required(property));
    if (!Files.exists(path)) {
      throw new IllegalStateException(
          "System property '"
              + property
              + "' names "
              + path
              + ", which does not exist. Run the bundle tests through Maven (phase verify).");
    }
    return path;
  }

  /** This module's bundle jar, the shaded one. */
  public static Path bundleJar() {
    return requiredFile("lockstep.bundle.jar");
  }

  /** A directory for this test's files under target/. */
  public static Path workDirectory(String name) throws IOException {
    return Files.createDirectories(Path.of(required("lockstep.bundle.work")).resolve(name));
  }

  public IsolatedClasspath add(Path entry) {
    if (!Files.exists(entry)) {
      throw new IllegalArgumentException("Class path entry " + entry + " does not exist");
    }
    entries.add(entry);
    return this;
  }

  /** Every jar of the conflicting libraries (old Guava, another Jackson 2.x, Curator 2, ...). */
  public IsolatedClasspath conflicts() throws IOException {
    Path directory = requiredFile("lockstep.bundle.conflicts");
    try (Stream<Path> jars = Files.list(directory)) {
      List<Path> sorted = jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
      if (sorted.size() < 10) {
        throw new IllegalStateException(
            "Expected the conflicting libraries in " + directory + ", found " + sorted);
      }
      sorted.forEach(this::add);
    }
    return this;
  }

  /** The engine's logging: SLF4J API and a simple provider (never in a bundle). */
  public IsolatedClasspath slf4j() {
    add(requiredFile("lockstep.bundle.slf4j"));
    return add(requiredFile("lockstep.bundle.slf4j-simple"));
  }

  /** The smoke jar. */
  public IsolatedClasspath smoke() {
    return add(requiredFile("lockstep.bundle.smoke"));
  }

  /**
   * Every entry of a class path file written by {@code dependency:build-classpath} (the provided
   * engine libraries a bundle expects), named by a system property.
   */
  public IsolatedClasspath classpathFile(String property) throws IOException {
    String content = Files.readString(requiredFile(property), StandardCharsets.UTF_8).trim();
    if (content.isEmpty()) {
      throw new IllegalStateException("The class path file of '" + property + "' is empty");
    }
    for (String entry : content.split(java.io.File.pathSeparator)) {
      add(Path.of(entry));
    }
    return this;
  }

  public List<Path> entries() {
    return List.copyOf(entries);
  }

  /** A loader over the entries; its parent is the platform loader. The caller closes it. */
  public URLClassLoader newLoader(String name) {
    List<URL> urls = new ArrayList<>();
    for (Path entry : entries) {
      try {
        urls.add(entry.toUri().toURL());
      } catch (MalformedURLException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new URLClassLoader(name, urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }

  /**
   * Runs {@code LockAndCommitSmoke.run(options, tableUri)} in {@code loader}, with the loader as
   * the thread's context class loader (as engines set it for user code), and returns its summary.
   */
  @SuppressWarnings("unchecked")
  public static Map<String, String> runSmoke(
      ClassLoader loader, Map<String, String> options, String tableUri) throws Exception {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      Class<?> smoke = Class.forName(SMOKE_CLASS, true, loader);
      Method run = smoke.getMethod("run", Map.class, String.class);
      return (Map<String, String>) run.invoke(null, options, tableUri);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception exception) {
        throw exception;
      }
      throw (Error) cause;
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** The jar or directory a class of {@code loader} comes from: proves which version wins. */
  public static String origin(ClassLoader loader, String className) throws ClassNotFoundException {
    Class<?> type = Class.forName(className, false, loader);
    if (type.getClassLoader() != loader) {
      throw new IllegalStateException(
          className
              + " was loaded by "
              + type.getClassLoader()
              + ", not by the isolated loader "
              + loader);
    }
    return type.getProtectionDomain().getCodeSource().getLocation().getPath();
  }
}
