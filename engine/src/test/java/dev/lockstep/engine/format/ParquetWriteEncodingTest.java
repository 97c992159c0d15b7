package dev.lockstep.engine.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary-key table's Parquet files write the single-column key and the sequence number plain
 * (every value once per file: a dictionary never pays) and keep the dictionary for other columns; a
 * column whose dictionary fell back to plain in a file is written plain in the next files, then
 * tried with a dictionary again, and every file reads back its rows.
 */
class ParquetWriteEncodingTest {

  @TempDir Path dir;

  @Test
  void keyAndSequencePlainOtherColumnsDictionary() throws Exception {
    var table = TestTables.keyValueTable(dir, Map.of("file.format", "parquet"));
    try (TableWrite write = table.newWrite("u")) {
      for (int i = 0; i < 5000; i++) {
        write.write(GenericRow.of(i, "v" + (i % 7)));
      }
      table.newCommit("u").commit(1, write.prepareCommit());
    }
    List<Path> files;
    try (Stream<Path> s = Files.walk(dir)) {
      files = s.filter(p -> p.toString().endsWith(".parquet")).toList();
    }
    assertThat(files).isNotEmpty();
    Set<Encoding> dictionary = EnumSet.of(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
    for (Path file : files) {
      Map<String, Set<Encoding>> encodings = new HashMap<>();
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(
                  new org.apache.hadoop.fs.Path(file.toUri()), new Configuration(false)))) {
        for (ColumnChunkMetaData c : reader.getFooter().getBlocks().get(0).getColumns()) {
          encodings.put(c.getPath().toDotString(), c.getEncodings());
        }
      }
      assertThat(encodings.get("k")).doesNotContainAnyElementsOf(dictionary);
      assertThat(encodings.get("_SEQUENCE")).doesNotContainAnyElementsOf(dictionary);
      assertThat(encodings.get("v")).containsAnyElementsOf(dictionary);
    }
  }

  private static final Set<Encoding> DICTIONARY =
      EnumSet.of(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);

  private static final RowType UNIQUE_AND_REPEATED =
      new RowType(
          List.of(
              new DataField(0, "unique", DataType.bigint()),
              new DataField(1, "text", DataType.string()),
              new DataField(2, "repeated", DataType.bigint()),
              new DataField(3, "label", DataType.string())));

  @Test
  void aColumnWhoseDictionaryFellBackIsWrittenPlainThenRetried() throws Exception {
    ParquetFileFormat format = new ParquetFileFormat("zstd", 128L << 20, 1 << 20);
    LocalFileIO io = new LocalFileIO();
    int rows = (int) ParquetFileFormat.LEARN_MIN_VALUES + 5000;

    // A file too small to teach anything: every dictionary falls back, nothing is learnt.
    write(format, io, "tiny", 0, 3);
    assertThat(format.learnedPlainColumns()).isEmpty();

    Map<String, Set<Encoding>> first = write(format, io, "first", 0, rows);
    assertThat(first.get("unique")).doesNotContainAnyElementsOf(DICTIONARY);
    assertThat(first.get("text")).doesNotContainAnyElementsOf(DICTIONARY);
    assertThat(first.get("repeated")).containsAnyElementsOf(DICTIONARY);
    assertThat(first.get("label")).containsAnyElementsOf(DICTIONARY);
    assertThat(format.learnedPlainColumns()).containsExactlyInAnyOrder("unique", "text");

    // The next files write the learnt columns plain from the start; the others keep the dictionary.
    for (int f = 0; f < ParquetFileFormat.LEARNED_PLAIN_FILES; f++) {
      Map<String, Set<Encoding>> next = write(format, io, "next-" + f, rows * (f + 1L), rows);
      assertThat(next.get("unique")).doesNotContainAnyElementsOf(DICTIONARY);
      assertThat(next.get("repeated")).containsAnyElementsOf(DICTIONARY);
      assertThat(next.get("label")).containsAnyElementsOf(DICTIONARY);
    }
    assertThat(format.learnedPlainColumns()).isEmpty();

    // Then the dictionary is tried again: a column whose values now repeat keeps it.
    Map<String, Set<Encoding>> retried = writeRepeating(format, io, "retried", rows);
    assertThat(retried.get("unique")).containsAnyElementsOf(DICTIONARY);
    assertThat(retried.get("text")).containsAnyElementsOf(DICTIONARY);
    assertThat(format.learnedPlainColumns()).isEmpty();
  }

  private static GenericRow row(long i, long unique) {
    return GenericRow.of(unique, "text-" + unique, i % 5, "label-" + (i % 3));
  }

  /** Writes {@code rows} rows with unique values from {@code from}, reads them back. */
  private Map<String, Set<Encoding>> write(
      ParquetFileFormat format, LocalFileIO io, String name, long from, int rows) throws Exception {
    List<GenericRow> written = new ArrayList<>();
    for (long i = 0; i < rows; i++) {
      written.add(row(i, from + i));
    }
    return writeAndCheck(format, io, name, written);
  }

  /** Writes {@code rows} rows whose "unique" and "text" values repeat (ten of each). */
  private Map<String, Set<Encoding>> writeRepeating(
      ParquetFileFormat format, LocalFileIO io, String name, int rows) throws Exception {
    List<GenericRow> written = new ArrayList<>();
    for (long i = 0; i < rows; i++) {
      written.add(row(i, i % 10));
    }
    return writeAndCheck(format, io, name, written);
  }

  private Map<String, Set<Encoding>> writeAndCheck(
      ParquetFileFormat format, LocalFileIO io, String name, List<GenericRow> rows)
      throws Exception {
    dev.lockstep.fs.Path file = dev.lockstep.fs.Path.of(dir.toString()).child(name + ".parquet");
    try (FormatWriter writer = format.createWriter(io, file, UNIQUE_AND_REPEATED)) {
      for (GenericRow r : rows) {
        writer.write(r);
      }
    }
    List<GenericRow> read = new ArrayList<>();
    try (FormatReader reader = format.createReader(io, file, UNIQUE_AND_REPEATED)) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        read.add(r);
      }
    }
    assertThat(read).isEqualTo(rows);
    Map<String, Set<Encoding>> encodings = new HashMap<>();
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(Path.of(dir.toString(), name + ".parquet").toUri()),
                new Configuration(false)))) {
      for (ColumnChunkMetaData c : reader.getFooter().getBlocks().get(0).getColumns()) {
        encodings.put(c.getPath().toDotString(), c.getEncodings());
      }
    }
    return encodings;
  }
}
