package dev.lockstep.engine.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The direct row encoding is plain Avro: any Avro reader reads it, and it reads any Avro writer.
 */
class RowDatumTest {

  @TempDir java.nio.file.Path dir;

  private static final RowType TYPES =
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
              new DataField(8, "ts", DataType.timestamp())));

  private static final GenericRow FULL =
      GenericRow.of(
          7,
          -5L,
          2.5,
          true,
          "héllo ✓",
          new byte[] {0, -1, 2},
          new BigDecimal("-12345678.9012"),
          LocalDate.of(1969, 7, 20),
          LocalDateTime.of(2024, 2, 29, 23, 59, 58, 123_456_000));
  private static final GenericRow NULLS =
      GenericRow.of(8, null, null, null, null, null, null, null, null);

  /** FULL as Avro's generic API represents it under AvroRows.schemaOf(TYPES). */
  private static GenericRecord fullAsRecord(Schema schema) {
    GenericData.Record r = new GenericData.Record(schema);
    r.put(0, 7);
    r.put(1, -5L);
    r.put(2, 2.5);
    r.put(3, true);
    r.put(4, "héllo ✓");
    r.put(5, ByteBuffer.wrap(new byte[] {0, -1, 2}));
    r.put(6, ByteBuffer.wrap(new BigDecimal("-12345678.9012").unscaledValue().toByteArray()));
    r.put(7, (int) LocalDate.of(1969, 7, 20).toEpochDay());
    r.put(
        8,
        LocalDateTime.of(2024, 2, 29, 23, 59, 58).toEpochSecond(java.time.ZoneOffset.UTC)
                * 1_000_000L
            + 123_456);
    return r;
  }

  @Test
  void encodesByteForByteAsAvrosGenericWriter() throws Exception {
    Schema schema = AvroRows.schemaOf(TYPES);
    ByteArrayOutputStream generic = new ByteArrayOutputStream();
    BinaryEncoder e1 = EncoderFactory.get().binaryEncoder(generic, null);
    new GenericDatumWriter<GenericRecord>(schema).write(fullAsRecord(schema), e1);
    e1.flush();
    ByteArrayOutputStream direct = new ByteArrayOutputStream();
    BinaryEncoder e2 = EncoderFactory.get().binaryEncoder(direct, null);
    new RowDatum.Writer(TYPES).write(FULL, e2);
    e2.flush();
    assertThat(direct.toByteArray()).isEqualTo(generic.toByteArray());
  }

  @Test
  void avrosGenericReaderReadsOurFiles() throws Exception {
    LocalFileIO io = new LocalFileIO();
    Path file = Path.of(dir.toString()).child("ours.avro");
    try (FormatWriter writer = new AvroFileFormat("deflate").createWriter(io, file, TYPES)) {
      writer.write(FULL);
      writer.write(NULLS);
    }
    List<GenericRecord> records = new ArrayList<>();
    try (InputStream in = io.newInputStream(file);
        DataFileStream<GenericRecord> stream =
            new DataFileStream<>(in, new GenericDatumReader<>())) {
      stream.forEach(records::add);
    }
    assertThat(records).hasSize(2);
    assertThat(records.get(0)).isEqualTo(fullAsRecord(AvroRows.schemaOf(TYPES)));
    assertThat(AvroRows.fromRecord(TYPES, records.get(1))).isEqualTo(NULLS);
  }

  @Test
  void filesOfAnotherWriterSchemaAreResolved() throws Exception {
    // Another writer's layout: an extra column in the middle, and the columns' order differs.
    Schema other =
        SchemaBuilder.record("row")
            .namespace("elsewhere")
            .fields()
            .name("f1")
            .type()
            .unionOf()
            .nullType()
            .and()
            .longType()
            .endUnion()
            .nullDefault()
            .name("extra")
            .type()
            .stringType()
            .noDefault()
            .name("f0")
            .type()
            .intType()
            .noDefault()
            .endRecord();
    RowType two = TYPES.project(new int[] {0, 1});
    LocalFileIO io = new LocalFileIO();
    Path file = Path.of(dir.toString()).child("other.avro");
    try (OutputStream out = io.newOutputStream(file, false);
        DataFileWriter<GenericRecord> writer =
            new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(other))) {
      writer.create(other, out);
      for (int i = 0; i < 3; i++) {
        GenericData.Record r = new GenericData.Record(other);
        r.put("f1", i == 1 ? null : 10L * i);
        r.put("extra", "dropped");
        r.put("f0", i);
        writer.append(r);
      }
    }
    RowDatum.Reader datum = new RowDatum.Reader(two);
    List<GenericRow> rows = new ArrayList<>();
    try (InputStream in = io.newInputStream(file);
        DataFileStream<GenericRow> stream = new DataFileStream<>(in, datum)) {
      stream.forEach(rows::add);
    }
    assertThat(datum.resolving()).isTrue();
    assertThat(rows)
        .containsExactly(GenericRow.of(0, 0L), GenericRow.of(1, null), GenericRow.of(2, 20L));
  }

  @Test
  void aNullableColumnMissingFromAnOlderFileReadsAsNull() throws Exception {
    // The file has i and b; the reader expects a nullable s after them (issue 19: _ROW_KIND).
    LocalFileIO io = new LocalFileIO();
    Path file = Path.of(dir.toString()).child("older.avro");
    RowType older = TYPES.project(new int[] {0, 1});
    try (FormatWriter writer = new AvroFileFormat("deflate").createWriter(io, file, older)) {
      writer.write(GenericRow.of(1, 10L));
      writer.write(GenericRow.of(2, null));
    }
    AvroFileFormat format = new AvroFileFormat("deflate");
    List<GenericRow> rows = new ArrayList<>();
    try (FormatReader reader = format.createReader(io, file, TYPES.project(new int[] {0, 1, 4}))) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        rows.add(r);
      }
    }
    assertThat(rows).containsExactly(GenericRow.of(1, 10L, null), GenericRow.of(2, null, null));
    // A NOT NULL column missing from the file has no value to take: the read fails.
    RowType notNull =
        new RowType(
            List.of(
                TYPES.field(0),
                TYPES.field(1),
                new DataField(9, "n", DataType.bigint().notNull())));
    assertThatThrownBy(
            () -> {
              try (FormatReader reader = format.createReader(io, file, notNull)) {
                reader.next();
              }
            })
        .hasMessageContaining("missing required field");
  }

  @Test
  void ourOwnFilesTakeTheDirectPath() throws Exception {
    LocalFileIO io = new LocalFileIO();
    Path file = Path.of(dir.toString()).child("direct.avro");
    try (FormatWriter writer = new AvroFileFormat("null").createWriter(io, file, TYPES)) {
      writer.write(FULL);
    }
    RowDatum.Reader datum = new RowDatum.Reader(TYPES);
    try (InputStream in = io.newInputStream(file);
        DataFileStream<GenericRow> stream = new DataFileStream<>(in, datum)) {
      assertThat(stream.next()).isEqualTo(FULL);
    }
    assertThat(datum.resolving()).isFalse();
  }

  @Test
  void nullInANotNullColumnNamesTheColumn() {
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(new ByteArrayOutputStream(), null);
    assertThatThrownBy(
            () ->
                new RowDatum.Writer(TYPES)
                    .write(
                        GenericRow.of(null, 1L, null, null, null, null, null, null, null), encoder))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Column 'i'")
        .hasMessageContaining("NOT NULL");
  }
}
