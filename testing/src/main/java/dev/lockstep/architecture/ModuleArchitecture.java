package dev.lockstep.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;

/**
 * The architecture rules every module keeps, checked on the module's own main classes (its {@code
 * target/classes}, the working directory of a test run being the module directory):
 *
 * <ol>
 *   <li>No package cycles: every package of the module is a slice, and the slices form no cycle.
 *   <li>No use of another module's internal code: a package named {@code internal} or {@code
 *       testing} belongs to its module alone (non-public types are kept out by the compiler).
 *   <li>A backend depends on no other backend, and nothing but the CLI, the benchmarks and the
 *       bundles depends on a backend.
 * </ol>
 *
 * <p>See docs/architecture.md ("Packages and the architecture rules") and CONTRIBUTING.md.
 */
public final class ModuleArchitecture {

  /** The root package of every backend module. */
  public static final List<String> BACKENDS =
      List.of(
          "dev.lockstep.lock.zookeeper",
          "dev.lockstep.lock.jdbc",
          "dev.lockstep.lock.hive",
          "dev.lockstep.fs.s3",
          "dev.lockstep.fs.oss",
          "dev.lockstep.fs.hdfs");

  private final JavaClasses classes;
  private final String[] ownPackages;

  private ModuleArchitecture(JavaClasses classes, String[] ownPackages) {
    this.classes = classes;
    this.ownPackages = ownPackages;
  }

  /**
   * The main classes of the module under test, whose own packages are {@code ownPackages} (and
   * their sub-packages).
   */
  public static ModuleArchitecture ofThisModule(String... ownPackages) {
    return ofClasses(Paths.get("target", "classes"), ownPackages);
  }

  /**
   * The main classes compiled into {@code main} (a module's {@code target/classes}), whose own
   * packages are {@code ownPackages}: for lock-api, whose tests of its rules run in the testing
   * module (lock-api cannot depend on the module that holds the rules).
   */
  public static ModuleArchitecture ofClasses(Path main, String... ownPackages) {
    if (!Files.isDirectory(main)) {
      throw new IllegalStateException(
          "No compiled main classes at "
              + main.toAbsolutePath()
              + ": run the test through Maven from the module directory (./mvnw -pl <module> verify).");
    }
    JavaClasses classes = new ClassFileImporter().importPath(main);
    if (classes.isEmpty()) {
      throw new IllegalStateException("No classes under " + main.toAbsolutePath());
    }
    return new ModuleArchitecture(classes, ownPackages.clone());
  }

  /** Rule 1: the module's packages form no cycle. */
  public void assertNoPackageCycles() {
    slices()
        .matching("dev.lockstep.(**)")
        .should()
        .beFreeOfCycles()
        .because("packages point one way (docs/architecture.md, architecture rules)")
        .check(classes);
  }

  /** Rule 2: no class uses another module's {@code internal} or {@code testing} package. */
  public void assertNoForeignInternals() {
    noClasses()
        .should()
        .dependOnClassesThat(resideInAnyPackage("..internal..", "..testing..").and(not(own())))
        .because("a package named 'internal' or 'testing' belongs to its module alone")
        .check(classes);
  }

  /** Rule 3: the module depends on no backend other than itself. */
  public void assertNoOtherBackend() {
    String[] others =
        BACKENDS.stream()
            .filter(b -> Arrays.stream(ownPackages).noneMatch(b::equals))
            .map(b -> b + "..")
            .toArray(String[]::new);
    noClasses()
        .should()
        .dependOnClassesThat(resideInAnyPackage(others))
        .because("backends are independent plugins; only cli, benchmarks and bundles combine them")
        .check(classes);
  }

  /** Every rule: what each module's ArchitectureTest runs. */
  public void assertAllRules() {
    assertNoPackageCycles();
    assertNoForeignInternals();
    assertNoOtherBackend();
  }

  private com.tngtech.archunit.base.DescribedPredicate<com.tngtech.archunit.core.domain.JavaClass>
      own() {
    return resideInAnyPackage(Arrays.stream(ownPackages).map(p -> p + "..").toArray(String[]::new));
  }
}
