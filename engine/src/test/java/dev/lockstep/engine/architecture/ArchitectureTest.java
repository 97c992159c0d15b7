package dev.lockstep.engine.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.lockstep.architecture.ModuleArchitecture;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The engine keeps the module rules (no package cycles among them) and its layers
 * (docs/engine.md#design-3-layers): each package depends only on the packages below it.
 */
class ArchitectureTest {

  /** Bottom to top. */
  static final List<String> LAYERS =
      List.of(
          "types",
          "snapshot",
          "data",
          "schema",
          "predicate",
          "format",
          "manifest",
          "store",
          "index",
          "scan",
          "maintenance",
          "compact",
          "write",
          "commit",
          "operation",
          "table",
          "catalog");

  /**
   * The module rules, with one exception to "no other module's {@code internal} package": Parquet's
   * page indexes (column and offset indexes, and the row ranges built from them) are public only in
   * parquet-mr's {@code org.apache.parquet.internal...columnindex} packages, which Paimon's and
   * Spark's Parquet readers use too. Only the {@code format} package may touch them, so a change of
   * parquet-mr's internals stays in the one package that owns the Parquet coupling (docs/engine.md,
   * page skipping).
   */
  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture module = ModuleArchitecture.ofThisModule("dev.lockstep.engine");
    module.assertNoPackageCycles();
    module.assertNoOtherBackend();
    JavaClasses classes = new ClassFileImporter().importPath(Paths.get("target", "classes"));
    DescribedPredicate<JavaClass> foreignInternals =
        resideInAnyPackage("..internal..", "..testing..")
            .and(not(resideInAnyPackage("dev.lockstep.engine..")));
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.lockstep.engine.format..")
        .should()
        .dependOnClassesThat(foreignInternals)
        .because("a package named 'internal' or 'testing' belongs to its module alone")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.lockstep.engine.format..")
        .should()
        .dependOnClassesThat(
            foreignInternals.and(
                not(
                    resideInAnyPackage(
                        "org.apache.parquet.internal.column.columnindex..",
                        "org.apache.parquet.internal.filter2.columnindex.."))))
        .because("format may use parquet-mr's page-index packages, no other foreign internals")
        .check(classes);
  }

  /**
   * The engine writes Parquet through {@code format.ParquetRowWriter} only: parquet-mr's {@code
   * ParquetWriter} with its record consumer is a test-only reference ({@code
   * format.ReferenceParquetWriter} in the test sources), not a second write path in main code.
   */
  @Test
  void parquetMrsRecordWriterIsNotInMainCode() {
    JavaClasses classes = new ClassFileImporter().importPath(Paths.get("target", "classes"));
    noClasses()
        .should()
        .dependOnClassesThat()
        .haveNameMatching(
            "org\\.apache\\.parquet\\.(hadoop\\.ParquetWriter(\\$.*)?"
                + "|hadoop\\.api\\.WriteSupport(\\$.*)?|io\\.api\\.RecordConsumer)")
        .because("ParquetRowWriter is the engine's one Parquet write path")
        .check(classes);
  }

  @Test
  void eachLayerDependsOnlyOnTheLayersBelowIt() {
    JavaClasses classes = new ClassFileImporter().importPath(Paths.get("target", "classes"));
    for (int i = 0; i < LAYERS.size() - 1; i++) {
      String[] above =
          LAYERS.subList(i + 1, LAYERS.size()).stream()
              .map(p -> "dev.lockstep.engine." + p + "..")
              .toArray(String[]::new);
      noClasses()
          .that()
          .resideInAPackage("dev.lockstep.engine." + LAYERS.get(i) + "..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(above)
          .because(
              "engine layers point down (docs/engine.md#design-3-layers): "
                  + String.join(" < ", LAYERS))
          .check(classes);
    }
  }

  @Test
  void everyEnginePackageHasALayer() {
    JavaClasses classes = new ClassFileImporter().importPath(Paths.get("target", "classes"));
    for (var c : classes) {
      String pkg = c.getPackageName();
      if (!pkg.startsWith("dev.lockstep.engine.")) {
        continue;
      }
      String top = pkg.substring("dev.lockstep.engine.".length()).split("\\.")[0];
      if (!LAYERS.contains(top)) {
        throw new AssertionError(
            "Package "
                + pkg
                + " (class "
                + c.getName()
                + ") has no layer:"
                + " add it to ArchitectureTest.LAYERS and docs/engine.md#design-3-layers");
      }
    }
  }
}
