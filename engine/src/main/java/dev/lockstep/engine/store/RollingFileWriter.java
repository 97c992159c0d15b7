package dev.lockstep.engine.store;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.FormatWriter;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.StatsCollector;
import dev.lockstep.engine.predicate.StatsMode;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Writes rows of one bucket into data files of one level, starting a new file when the current one
 * reaches {@code target-file-size}. Primary-key rows must come in key order (min and max key are
 * the first and last). Not thread-safe.
 *
 * <p>After {@link #abort()} (or a failed write) every file it started is deleted: none is
 * committed.
 */
public final class RollingFileWriter {

  private final TableStore table;
  private final Path directory;
  private final int level;
  private final String prefix;
  private final List<DataFileMeta> finished = new ArrayList<>();
  private final List<Path> started = new ArrayList<>();
  private FormatWriter current;
  private String currentName;
  private long rowCount;

  /**
   * The row count at which the current file's length is checked next: asking a Parquet writer for
   * its length walks every column's buffers, so it is asked about twice per estimated distance to
   * {@code target-file-size} (every row when close, at most every {@link #MAX_CHECK_DISTANCE}).
   */
  private long nextLengthCheck;

  static final int MAX_CHECK_DISTANCE = 1024;

  /** Key columns of data-file rows in a primary-key table; {@code null} in append tables. */
  private final int[] keyIndexes;

  private GenericRow firstRow;
  private GenericRow lastRow;
  private long minSeq;
  private long maxSeq;

  /** The stats mode of each table column; {@code null} when every one is {@code none}. */
  private final StatsMode[] statsModes;

  private StatsCollector stats;

  public RollingFileWriter(TableStore table, String partition, int bucket, int level) {
    this(table, partition, bucket, level, "data-");
  }

  /**
   * @param prefix the file names' prefix: {@code data-}, or {@code changelog-} for changelog files
   *     (rows in any order: their min and max key are the first and last row's)
   */
  public RollingFileWriter(
      TableStore table, String partition, int bucket, int level, String prefix) {
    this.prefix = prefix;
    this.table = table;
    this.directory = table.bucketPath(partition, bucket);
    this.level = level;
    this.keyIndexes = table.primaryKeyTable() ? table.schema().primaryKeyIndexes() : null;
    StatsMode[] modes = table.statsModes();
    this.statsModes =
        java.util.Arrays.stream(modes).allMatch(m -> m.kind() == StatsMode.Kind.NONE)
            ? null
            : modes;
  }

  /**
   * Appends one data-file row; in a primary-key table its key columns give the file's min and max
   * key (the first and last row's).
   *
   * @param sequence the row's sequence number
   */
  public void write(GenericRow fileRow, long sequence) throws IOException {
    try {
      if (current == null) {
        currentName = prefix + UUID.randomUUID() + "." + table.format().extension();
        Path path = directory.child(currentName);
        started.add(path);
        current = table.format().createWriter(table.fileIO(), path, table.dataFileRowType());
        rowCount = 0;
        nextLengthCheck = 1;
        firstRow = fileRow;
        minSeq = sequence;
        maxSeq = sequence;
        // A format that keeps every column's statistics (Parquet's footer) gives them at the end;
        // only other formats (Avro) need them collected row by row.
        stats = statsModes == null || current.keepsStats() ? null : new StatsCollector(statsModes);
      }
      current.write(fileRow);
      if (stats != null) {
        stats.update(fileRow);
      }
      rowCount++;
      lastRow = fileRow;
      minSeq = Math.min(minSeq, sequence);
      maxSeq = Math.max(maxSeq, sequence);
      if (rowCount >= nextLengthCheck) {
        long length = current.length();
        long target = table.options().targetFileBytes();
        if (length >= target) {
          finishFile();
        } else {
          long perRow = Math.max(1, length / rowCount);
          nextLengthCheck =
              rowCount + Math.max(1, Math.min(MAX_CHECK_DISTANCE, (target - length) / perRow / 2));
        }
      }
    } catch (IOException | RuntimeException e) {
      abort();
      throw e;
    }
  }

  private void finishFile() throws IOException {
    current.close();
    FieldStats[] fileStats = null;
    if (statsModes != null) {
      fileStats =
          stats != null
              ? stats.result()
              : StatsCollector.apply(statsModes, current.stats(statsModes.length));
    }
    current = null;
    Path path = directory.child(currentName);
    long size = table.fileIO().getStatus(path).length();
    byte[] min = keyIndexes == null ? null : table.keyCodec().encode(firstRow.project(keyIndexes));
    byte[] max = keyIndexes == null ? null : table.keyCodec().encode(lastRow.project(keyIndexes));
    firstRow = null;
    lastRow = null;
    finished.add(
        new DataFileMeta(
            currentName,
            size,
            rowCount,
            min,
            max,
            minSeq,
            maxSeq,
            table.schema().id(),
            level,
            System.currentTimeMillis(),
            DataFileMeta.UNCOMMITTED,
            fileStats == null ? null : table.valueStatsCodec().encode(fileStats)));
    stats = null;
  }

  /** Finishes the last file; returns every file written, in order. */
  public List<DataFileMeta> finish() throws IOException {
    try {
      if (current != null) {
        finishFile();
      }
    } catch (IOException | RuntimeException e) {
      abort();
      throw e;
    }
    return List.copyOf(finished);
  }

  /** Closes and deletes every file started; best effort. */
  public void abort() {
    if (current != null) {
      try {
        current.close();
      } catch (IOException | RuntimeException ignored) {
        // The file is deleted below.
      }
      current = null;
    }
    for (Path path : started) {
      try {
        table.fileIO().delete(path, false);
      } catch (IOException ignored) {
        // An unreferenced file; orphan-file removal collects it.
      }
    }
    finished.clear();
  }
}
