package dev.lockstep.bench;

import java.nio.file.Path;

/**
 * A table format under benchmark: Lockstep or Apache Paimon, driven through the same small surface so
 * that both run the very same workload code.
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
}
