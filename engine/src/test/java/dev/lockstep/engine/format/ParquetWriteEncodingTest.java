package dev.lockstep.engine.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * (every value once per file: a dictionary never pays) and keep the dictionary for other columns.
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
}
