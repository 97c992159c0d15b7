package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.PartitionPath;
import dev.lockstep.engine.format.AvroFileFormat;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.format.FormatWriter;
import dev.lockstep.engine.format.KeyCodec;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFile;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.manifest.ManifestList;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FormatAndManifestTest {

  @TempDir java.nio.file.Path dir;

  private static final RowType ALL_TYPES =
      new RowType(
          List.of(
              new DataField(0, "i", DataType.intType().notNull()),
              new DataField(1, "b", DataType.bigint()),
              new DataField(2, "d", DataType.doubleType()),
              new DataField(3, "flag", DataType.booleanType()),
              new DataField(4, "s", DataType.string()),
              new DataField(5, "raw", DataType.bytes()),
              new DataField(6, "dec", DataType.decimal(20, 4)),
              new DataField(7, "day", DataType.date()),
              new DataField(8, "ts", DataType.timestamp()),
              new DataField(9, "odd name/with=chars", DataType.string())));

  @Test
  void everyTypeSurvivesACompressedAvroFile() throws Exception {
    GenericRow full =
        GenericRow.of(
            7,
            -5L,
            2.5,
            true,
            "héllo",
            new byte[] {0, -1, 2},
            new BigDecimal("-12345678.9012"),
            LocalDate.of(1969, 7, 20),
            LocalDateTime.of(2024, 2, 29, 23, 59, 58, 123_456_000),
            "x");
    GenericRow nulls = GenericRow.of(8, null, null, null, null, null, null, null, null, null);
    LocalFileIO io = new LocalFileIO();
    Path file = Path.of(dir.toString()).child("rows.avro");
    try (FormatWriter writer = new AvroFileFormat("deflate").createWriter(io, file, ALL_TYPES)) {
      writer.write(full);
      writer.write(nulls);
    }
    List<GenericRow> read = new ArrayList<>();
    try (FormatReader reader = new AvroFileFormat("deflate").createReader(io, file, ALL_TYPES)) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        read.add(r);
      }
    }
    assertThat(read).containsExactly(full, nulls);
  }

  @Test
  void keysEncodeAndDecode() {
    KeyCodec codec = new KeyCodec(ALL_TYPES.project(new int[] {0, 4, 6, 8}));
    GenericRow key =
        GenericRow.of(1, "k", new BigDecimal("1.0000"), LocalDateTime.of(2000, 1, 1, 0, 0));
    assertThat(codec.decode(codec.encode(key))).isEqualTo(key);
  }

  @Test
  void partitionPathsEscapeAndParseBack() {
    PartitionPath paths =
        new PartitionPath(
            new RowType(
                List.of(
                    new DataField(0, "dt", DataType.date()),
                    new DataField(1, "name", DataType.string()),
                    new DataField(2, "n", DataType.intType()))));
    GenericRow row = GenericRow.of(LocalDate.of(2024, 5, 1), "a/b=c%d ü", null);
    String path = paths.toPath(row);
    assertThat(path).isEqualTo("dt=2024-05-01/name=a%2Fb%3Dc%25d ü/n=__DEFAULT_PARTITION__");
    assertThat(paths.toRow(path)).isEqualTo(row);
  }

  @Test
  void manifestsAndListsRoundTripWithCommitSnapshotsResolved() throws Exception {
    LocalFileIO io = new LocalFileIO();
    Path manifestDir = Path.of(dir.toString()).child("manifest");
    ManifestFile manifests = new ManifestFile(io, manifestDir, new AvroFileFormat("deflate"));
    DataFileMeta fresh =
        new DataFileMeta(
            "data-1.avro",
            100,
            10,
            new byte[] {1},
            new byte[] {2},
            0,
            9,
            0,
            0,
            123,
            DataFileMeta.UNCOMMITTED);
    DataFileMeta compacted = new DataFileMeta("data-2.avro", 50, 5, null, null, 3, 4, 0, 2, 456, 7);
    ManifestFileMeta meta =
        manifests.write(
            List.of(
                new ManifestEntry(FileKind.ADD, "p=1", 0, 1, fresh),
                new ManifestEntry(FileKind.DELETE, "p=1", 0, 1, compacted)));
    assertThat(meta.numAdded()).isEqualTo(1);
    assertThat(meta.numDeleted()).isEqualTo(1);

    ManifestList lists = new ManifestList(io, manifestDir, new AvroFileFormat("deflate"));
    String list = lists.write(List.of(meta.withSnapshotId(42)));
    ManifestFileMeta readMeta = lists.read(list).get(0);
    assertThat(readMeta).isEqualTo(meta.withSnapshotId(42));

    ManifestFile cold = new ManifestFile(io, manifestDir, new AvroFileFormat("deflate"));
    List<ManifestEntry> entries = cold.read(readMeta);
    assertThat(entries.get(0).file().commitSnapshot()).isEqualTo(42);
    assertThat(entries.get(0).file().minKey()).containsExactly(1);
    assertThat(entries.get(1).file().commitSnapshot()).isEqualTo(7);
    assertThat(entries.get(1).kind()).isEqualTo(FileKind.DELETE);
    assertThat(entries.get(1).file().level()).isEqualTo(2);
  }
}
