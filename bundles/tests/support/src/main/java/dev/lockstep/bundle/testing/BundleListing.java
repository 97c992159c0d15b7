package dev.lockstep.bundle.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The entries of a bundle jar, and the checks every bundle must pass:
 *
 * <ol>
 *   <li>No native library; every class (multi-release versions included) is under {@code
 *       dev/lockstep/}: Lockstep's own classes, unrelocated, and every third-party class under
 *       {@value #SHADED}, in the bundle's own {@code <name>/} ({@link #assertShadedOnlyUnder}).
 *   <li>Every {@code META-INF/services} file names a Lockstep or JDK interface, and every provider
 *       it lists is a class in the jar (a relocation that renamed a class but not its service
 *       entry, or the reverse, fails here).
 *   <li>Resources outside {@code META-INF/} and {@code dev/lockstep/} are exactly the documented
 *       ones.
 *   <li>The licenses and notices of what is bundled are in the jar.
 * </ol>
 */
public final class BundleListing {

  /** Where every third-party class must be. */
  public static final String SHADED = "dev/lockstep/shaded/";

  /** The Paimon interfaces a bundle may register plugins for (Paimon itself is never bundled). */
  public static final String PAIMON_SERVICES =
      "org\\.apache\\.paimon\\.factories\\.Factory|org\\.apache\\.paimon\\.fs\\.FileIOLoader";

  private static final Pattern VERSIONED = Pattern.compile("META-INF/versions/\\d+/(.*)");
  private static final Pattern MAVEN_POM =
      Pattern.compile("META-INF/maven/([^/]+)/([^/]+)/pom\\.properties");

  private final Path jar;
  private final List<String> entries;
  private final TreeMap<String, List<String>> services = new TreeMap<>();

  private BundleListing(Path jar) throws IOException {
    this.jar = jar;
    List<String> names = new ArrayList<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      for (JarEntry entry : Collections.list(file.entries())) {
        if (entry.isDirectory()) {
          continue;
        }
        names.add(entry.getName());
        if (entry.getName().startsWith("META-INF/services/")) {
          services.put(
              entry.getName().substring("META-INF/services/".length()), providers(file, entry));
        }
      }
    }
    this.entries = List.copyOf(names);
  }

  public static BundleListing of(Path jar) throws IOException {
    return new BundleListing(jar);
  }

  public List<String> entries() {
    return entries;
  }

  /** Class entries (with the multi-release prefix removed) that are not under dev/lockstep/. */
  public Set<String> classesOutsideLockstep() {
    Set<String> outside = new TreeSet<>();
    for (String name : entries) {
      if (name.endsWith(".class") && !unversioned(name).startsWith("dev/lockstep/")) {
        outside.add(name);
      }
    }
    return outside;
  }

  /** Resources (not classes) outside META-INF/ and dev/lockstep/. */
  public Set<String> resourcesOutside() {
    Set<String> outside = new TreeSet<>();
    for (String name : entries) {
      if (!name.endsWith(".class")
          && !name.startsWith("META-INF/")
          && !name.startsWith("dev/lockstep/")) {
        outside.add(name);
      }
    }
    return outside;
  }

  /** The top packages (three levels) under {@value #SHADED}, e.g. {@code org/apache/curator}. */
  public Set<String> shadedPackages() {
    Set<String> packages = new TreeSet<>();
    for (String name : entries) {
      String path = unversioned(name);
      if (path.startsWith(SHADED) && path.endsWith(".class")) {
        String[] parts = path.substring(SHADED.length()).split("/");
        if (parts.length > 3) {
          packages.add(parts[0] + "/" + parts[1] + "/" + parts[2]);
        }
      }
    }
    return packages;
  }

  /**
   * {@code groupId:artifactId} of every library bundled (from its META-INF/maven pom.properties).
   */
  public Set<String> bundledArtifacts() {
    Set<String> artifacts = new TreeSet<>();
    for (String name : entries) {
      Matcher m = MAVEN_POM.matcher(name);
      if (m.matches()) {
        artifacts.add(m.group(1) + ":" + m.group(2));
      }
    }
    return artifacts;
  }

  /** The artifact ids that have license or notice files under META-INF/licenses/. */
  public Set<String> licensedArtifacts() {
    Set<String> licensed = new TreeSet<>();
    for (String name : entries) {
      if (name.startsWith("META-INF/licenses/")) {
        String rest = name.substring("META-INF/licenses/".length());
        int slash = rest.indexOf('/');
        if (slash > 0) {
          String directory = rest.substring(0, slash);
          licensed.add(
              directory.endsWith("-jar")
                  ? directory.substring(0, directory.length() - "-jar".length())
                  : directory);
        }
      }
    }
    return licensed;
  }

  /**
   * Check 4: a merged {@code META-INF/NOTICE}, and {@code META-INF/THIRD-PARTY.txt} names every
   * third-party library bundled (each has its {@code META-INF/maven} entry) with its license.
   *
   * @param nested libraries that a bundled library had already copied into itself (their {@code
   *     META-INF/maven} entry comes along); they are covered by that library's license
   */
  public void assertLicensesListed(String... nested) throws IOException {
    assertThat(entries).as("merged notices in %s", jar).contains("META-INF/NOTICE");
    String thirdParty = text("META-INF/THIRD-PARTY.txt");
    for (String artifact : bundledArtifacts()) {
      if (!artifact.startsWith("dev.lockstep:") && !List.of(nested).contains(artifact)) {
        assertThat(thirdParty)
            .as("META-INF/THIRD-PARTY.txt of %s lists %s", jar, artifact)
            .contains("(" + artifact + ":");
      }
    }
  }

  /** The text of one entry. */
  public String text(String entry) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      JarEntry found = file.getJarEntry(entry);
      assertThat(found).as("entry %s in %s", entry, jar).isNotNull();
      return new String(file.getInputStream(found).readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  public boolean contains(String entry) {
    return entries.contains(entry);
  }

  /** Service file name (the interface) to the providers it lists. */
  public TreeMap<String, List<String>> services() {
    return services;
  }

  /**
   * Every relocated class is under this bundle's own prefix ({@code dev/lockstep/shaded/<name>/}),
   * so that two bundles on one class path never define the same class.
   */
  public void assertShadedOnlyUnder(String prefix) {
    assertThat(prefix).startsWith(SHADED).endsWith("/");
    Set<String> elsewhere = new TreeSet<>();
    for (String name : entries) {
      String path = unversioned(name);
      if (path.startsWith(SHADED) && !path.startsWith(prefix)) {
        elsewhere.add(name);
      }
    }
    assertThat(elsewhere).as("relocated entries of %s outside %s", jar, prefix).isEmpty();
    assertThat(entries).as("relocated classes in %s", jar).anyMatch(n -> n.startsWith(prefix));
  }

  /** Checks 1 and 2 of the class javadoc, and that {@code expectedClasses} are in the jar. */
  public void assertSelfContained(String... expectedClasses) {
    // Native libraries bind JNI names to their original packages, which relocation cannot rename.
    assertThat(entries)
        .as("native libraries in %s", jar)
        .noneMatch(
            name ->
                name.endsWith(".so")
                    || name.endsWith(".dll")
                    || name.endsWith(".dylib")
                    || name.endsWith(".jnilib"));
    assertThat(classesOutsideLockstep())
        .as(
            "classes of %s outside dev/lockstep/ (third-party code must be relocated under %s)",
            jar, SHADED)
        .isEmpty();
    for (var service : services.entrySet()) {
      assertThat(service.getKey())
          .as("service file META-INF/services/%s of %s", service.getKey(), jar)
          .matches("(dev\\.lockstep\\.|java\\.).*|" + PAIMON_SERVICES);
      assertThat(service.getValue())
          .as("providers in META-INF/services/%s", service.getKey())
          .isNotEmpty();
      for (String provider : service.getValue()) {
        assertThat(entries)
            .as("provider %s listed in META-INF/services/%s of %s", provider, service.getKey(), jar)
            .contains(provider.replace('.', '/') + ".class");
      }
    }
    for (String expected : expectedClasses) {
      assertThat(entries)
          .as("class %s in %s", expected, jar)
          .contains(expected.replace('.', '/') + ".class");
    }
  }

  /**
   * The bundle is a Paimon plugin: its {@code META-INF/services/<paimonService>} lists exactly
   * {@code providers}; no Paimon class is in the jar, relocated or not; and every class of
   * lockstep-paimon ({@code paimonJar}) is in the jar byte for byte, unchanged by the relocation.
   * So the copies in two bundles are the same class, whichever of them a class loader finds first.
   */
  public void assertPaimonPlugins(Path paimonJar, String paimonService, String... providers)
      throws IOException {
    assertThat(services.get(paimonService))
        .as("META-INF/services/%s of %s", paimonService, jar)
        .containsExactlyInAnyOrder(providers);
    assertThat(services.keySet())
        .as("Paimon service files of %s", jar)
        .filteredOn(name -> name.startsWith("org.apache.paimon."))
        .containsExactly(paimonService);
    assertThat(entries)
        .as("Paimon classes in %s (Paimon is the engine's)", jar)
        .noneMatch(name -> name.contains("org/apache/paimon/"));
    int classes = 0;
    try (JarFile bundle = new JarFile(jar.toFile());
        JarFile paimon = new JarFile(paimonJar.toFile())) {
      for (JarEntry entry : Collections.list(paimon.entries())) {
        if (!entry.getName().endsWith(".class")) {
          continue;
        }
        JarEntry copy = bundle.getJarEntry(entry.getName());
        assertThat(copy).as("%s of %s in %s", entry.getName(), paimonJar, jar).isNotNull();
        assertThat(bundle.getInputStream(copy).readAllBytes())
            .as("%s in %s, byte for byte as in %s", entry.getName(), jar, paimonJar)
            .isEqualTo(paimon.getInputStream(entry).readAllBytes());
        classes++;
      }
    }
    assertThat(classes).as("classes in %s", paimonJar).isPositive();
  }

  private static String unversioned(String name) {
    Matcher m = VERSIONED.matcher(name);
    return m.matches() ? m.group(1) : name;
  }

  private static List<String> providers(JarFile file, JarEntry entry) throws IOException {
    List<String> providers = new ArrayList<>();
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(file.getInputStream(entry), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        int comment = line.indexOf('#');
        String provider = (comment >= 0 ? line.substring(0, comment) : line).trim();
        if (!provider.isEmpty()) {
          providers.add(provider);
        }
      }
    }
    return providers;
  }
}
