package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.RowType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * Encodes a key row (for example a file's min and max primary key in a manifest) as Avro binary
 * bytes of the key's row type. Thread-safe.
 */
public final class KeyCodec {

  private final RowType keyType;
  private final Schema schema;

  public KeyCodec(RowType keyType) {
    this.keyType = keyType;
    this.schema = AvroRows.schemaOf(keyType);
  }

  public byte[] encode(GenericRow key) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<GenericRecord>(schema)
          .write(AvroRows.toRecord(schema, keyType, key), encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public GenericRow decode(byte[] bytes) {
    try {
      GenericRecord record = new GenericDatumReader<GenericRecord>(schema)
          .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
      return AvroRows.fromRecord(keyType, record);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot decode a key of type " + keyType, e);
    }
  }
}
