package dev.lockstep.bench;

import java.nio.file.Path;
import java.util.Map;

/**
 * A table format under benchmark: Lockstep or Apache Paimon, driven through the same small surface
 * so that both run the very same workload code.
 */
public interface BenchSystem {

  /** Short name for reports, for example {@code lockstep} or {@code paimon}. */
  String name();

  /** Version string for reports. */
  String version();

  /**
   * Creates a table in a fresh warehouse directory.
   *
   * @param warehouse an empty local directory
   * @param spec what kind of table
   */
  BenchTable createTable(Path warehouse, TableSpec spec) throws Exception;

  /** Classifies an exception thrown by {@link BenchWriter#commit}. */
  FailureKind classify(Exception commitFailure);

  /**
   * The options every table of this system gets beyond its {@link TableSpec}, and the defaults that
   * matter for the comparison, for the report: key to value.
   */
  Map<String, String> settings();
}
