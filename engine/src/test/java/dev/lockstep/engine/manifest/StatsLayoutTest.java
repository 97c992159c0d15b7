package dev.lockstep.engine.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.AvroFileFormat;
import dev.lockstep.engine.format.FormatWriter;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Manifests and manifest lists written before column and partition statistics (without their last,
 * nullable column) read as "no statistics" (issue 20).
 */
class StatsLayoutTest {

  @TempDir java.nio.file.Path dir;

  private static RowType withoutLast(RowType rowType) {
    List<DataField> fields = new ArrayList<>(rowType.fields());
    fields.remove(fields.size() - 1);
    return new RowType(fields);
  }

  @Test
  void aManifestOfTheLayoutBeforeStatisticsReadsWithoutThem() throws Exception {
    LocalFileIO io = new LocalFileIO();
    Path directory = Path.of(dir.toString());
    AvroFileFormat avro = new AvroFileFormat("deflate");
    assertThat(ManifestFile.ROW_TYPE.field(15).name()).isEqualTo("value_stats");
    try (FormatWriter w =
        avro.createWriter(
            io, directory.child("manifest-old.avro"), withoutLast(ManifestFile.ROW_TYPE))) {
      w.write(
          GenericRow.of(
              FileKind.ADD.ordinal(),
              "",
              0,
              1,
              "data-1.avro",
              10L,
              3L,
              null,
              null,
              0L,
              2L,
              0L,
              0,
              1L,
              4L));
    }
    List<ManifestEntry> entries =
        new ManifestFile(io, directory, avro)
            .read(new ManifestFileMeta("manifest-old.avro", 0, 1, 0, -1));
    assertThat(entries).hasSize(1);
    DataFileMeta file = entries.get(0).file();
    assertThat(file.fileName()).isEqualTo("data-1.avro");
    assertThat(file.rowCount()).isEqualTo(3);
    assertThat(file.commitSnapshot()).isEqualTo(4);
    assertThat(file.valueStats()).isNull();

    assertThat(ManifestList.ROW_TYPE.field(5).name()).isEqualTo("partition_stats");
    try (FormatWriter w =
        avro.createWriter(
            io, directory.child("manifest-list-old.avro"), withoutLast(ManifestList.ROW_TYPE))) {
      w.write(GenericRow.of("manifest-old.avro", 100L, 1L, 0L, 4L));
    }
    List<ManifestFileMeta> metas =
        new ManifestList(io, directory, avro).read("manifest-list-old.avro");
    assertThat(metas).containsExactly(new ManifestFileMeta("manifest-old.avro", 100, 1, 0, 4));
    assertThat(metas.get(0).partitionStats()).isNull();
  }
}
