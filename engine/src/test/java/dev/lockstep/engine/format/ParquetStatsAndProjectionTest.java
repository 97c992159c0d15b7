package dev.lockstep.engine.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.StatsCollector;
import dev.lockstep.engine.predicate.StatsMode;
import dev.lockstep.engine.predicate.StatsView;
import dev.lockstep.engine.types.DataTypeRoot;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Parquet writes row-group statistics for every column, and they read back as the same bounds the
 * engine's own statistics give (DOUBLE's and FLOAT's excepted, by design); projected reads return
 * exactly the asked columns in both formats (issue 20).
 */
class ParquetStatsAndProjectionTest {

  @TempDir java.nio.file.Path dir;

  private final LocalFileIO io = new LocalFileIO();
  private static final RowType TYPES = FileFormatRoundTripTest.ALL_TYPES;

  @Test
  void rowGroupStatisticsOfEveryTypeMatchTheEnginesOwn() throws IOException {
    List<GenericRow> rows = FileFormatRoundTripTest.rows(5000, 11);
    Path file = Path.of(dir.toString()).child("data.parquet");
    try (FormatWriter writer =
        new ParquetFileFormat("zstd", 8 * 1024, 1024).createWriter(io, file, TYPES)) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
    List<BlockMetaData> blocks;
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new ParquetFileFormat.FileInput(io, file),
            HadoopReadOptions.builder(new Configuration(false)).build())) {
      blocks = reader.getFooter().getBlocks();
    }
    assertThat(blocks).hasSizeGreaterThan(2);
    StatsMode[] full = new StatsMode[TYPES.size()];
    Arrays.fill(full, StatsMode.FULL);
    int offset = 0;
    for (BlockMetaData block : blocks) {
      StatsCollector expected = new StatsCollector(full);
      for (int i = 0; i < block.getRowCount(); i++) {
        expected.update(rows.get(offset + i));
      }
      offset += (int) block.getRowCount();
      StatsView actual = ParquetRows.statsOf(block, TYPES);
      assertThat(actual.rowCount()).isEqualTo(block.getRowCount());
      FieldStats[] want = expected.result();
      for (int c = 0; c < TYPES.size(); c++) {
        FieldStats got = actual.field(c);
        String column = TYPES.field(c).name();
        assertThat(got.nullCount()).as(column).isEqualTo(want[c].nullCount());
        if (TYPES.field(c).type().root() == DataTypeRoot.DOUBLE
            || TYPES.field(c).type().root() == DataTypeRoot.FLOAT) {
          assertThat(got.min()).as(column).isNull();
          continue;
        }
        if (TYPES.field(c).type().root() == DataTypeRoot.BYTES) {
          assertThat((byte[]) got.min()).as(column).isEqualTo((byte[]) want[c].min());
          assertThat((byte[]) got.max()).as(column).isEqualTo((byte[]) want[c].max());
          continue;
        }
        assertThat(got.min()).as(column).isEqualTo(want[c].min());
        assertThat(got.max()).as(column).isEqualTo(want[c].max());
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"parquet", "avro"})
  void projectedReadsReturnTheAskedColumnsOnly(String format) throws IOException {
    List<GenericRow> rows = FileFormatRoundTripTest.rows(500, 5);
    DataFileFormat files = new DataFileFormat(format, "zstd", 4096, 1024);
    Path file = Path.of(dir.toString()).child("data." + files.extension());
    try (FormatWriter writer = files.createWriter(io, file, TYPES)) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
    boolean[] columns = new boolean[TYPES.size()];
    columns[1] = true;
    columns[4] = true;
    columns[8] = true;
    columns[16] = true;
    columns[19] = true;
    List<GenericRow> read = new ArrayList<>();
    try (FormatReader reader =
        files.createReader(io, file, TYPES, new ReadOptions(columns, null, null))) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        read.add(r);
      }
    }
    assertThat(read).hasSize(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      for (int c = 0; c < TYPES.size(); c++) {
        if (columns[c]) {
          assertThat(read.get(i).get(c)).isEqualTo(rows.get(i).get(c));
        } else {
          assertThat(read.get(i).get(c)).as("column %s not read", c).isNull();
        }
      }
    }
  }
}
