package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.RowType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * Encodes a key row (for example a file's min and max primary key in a manifest) as Avro binary
 * bytes of the key's row type. Thread-safe.
 */
public final class KeyCodec {

  private final RowType keyType;

  /** Stateless, so shared; readers keep a scratch buffer and are made per call. */
  private final RowDatum.Writer writer;

  public KeyCodec(RowType keyType) {
    this.keyType = keyType;
    this.writer = new RowDatum.Writer(keyType);
  }

  public byte[] encode(GenericRow key) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      writer.write(key, encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public GenericRow decode(byte[] bytes) {
    try {
      return new RowDatum.Reader(keyType)
          .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot decode a key of type " + keyType, e);
    }
  }
}
