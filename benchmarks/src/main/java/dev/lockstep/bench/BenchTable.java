package dev.lockstep.bench;

import java.util.Map;

/** A table under benchmark. */
public interface BenchTable extends AutoCloseable {

  /** A writer with its own commit user. */
  BenchWriter newWriter(String commitUser) throws Exception;

  /**
   * Reads the whole latest snapshot: the row count and, when {@code collectKeys} and the table has
   * a primary key, key to value.
   */
  ScanResult scan(boolean collectKeys) throws Exception;

  /**
   * Plans a full scan of the latest snapshot through a fresh table object (no metadata cached in
   * this JVM) and returns the number of data files it found.
   */
  long planFiles() throws Exception;

  /** The number of snapshots committed. */
  long snapshotCount() throws Exception;

  /**
   * The table's store counters now, for a per-commit breakdown (Lockstep: {@code
   * lockstep.CountingFileIO#snapshot()}, indexed as that class says); {@code null} when the system
   * does not count.
   */
  default long[] storeCounters() {
    return null;
  }

  /** What a full scan read. */
  record ScanResult(long rows, Map<Integer, Long> keyToValue) {}

  /**
   * The store calls made on this table so far, "operation kind" to calls, when the system counts
   * them ({@code -Dlockstep.bench.count-store=true}, Lockstep only); else empty.
   */
  default java.util.Map<String, Long> storeCalls() {
    return java.util.Map.of();
  }

  @Override
  void close() throws Exception;
}
