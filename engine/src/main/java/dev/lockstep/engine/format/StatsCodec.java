package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Encodes the {@link FieldStats} of the columns of a row type as bytes (a manifest keeps them per
 * data file, as it keeps the min and max key): a version byte, then one Avro binary row of the
 * columns' minimums, maximums and null counts, every one nullable (NULL: unknown). Thread-safe.
 */
public final class StatsCodec {

  private static final byte VERSION = 1;

  private final int columns;
  private final KeyCodec codec;

  public StatsCodec(RowType rowType) {
    this.columns = rowType.size();
    List<DataField> fields = new ArrayList<>();
    for (DataField f : rowType.fields()) {
      fields.add(new DataField(fields.size(), "min_" + f.name(), f.type().nullableType()));
    }
    for (DataField f : rowType.fields()) {
      fields.add(new DataField(fields.size(), "max_" + f.name(), f.type().nullableType()));
    }
    for (DataField f : rowType.fields()) {
      fields.add(new DataField(fields.size(), "nulls_" + f.name(), DataType.bigint()));
    }
    this.codec = new KeyCodec(new RowType(fields));
  }

  /** The bytes of {@code stats} (one per column, {@code null} for unknown). */
  public byte[] encode(FieldStats[] stats) {
    Object[] values = new Object[3 * columns];
    for (int i = 0; i < columns; i++) {
      FieldStats f = stats[i];
      if (f != null) {
        values[i] = f.min();
        values[columns + i] = f.max();
        values[2 * columns + i] = f.nullCount();
      }
    }
    byte[] row = codec.encode(GenericRow.wrap(values));
    byte[] bytes = new byte[row.length + 1];
    bytes[0] = VERSION;
    System.arraycopy(row, 0, bytes, 1, row.length);
    return bytes;
  }

  /** The statistics {@link #encode} wrote; {@code null} for bytes of an unknown version. */
  public FieldStats[] decode(byte[] bytes) {
    if (bytes == null || bytes.length == 0 || bytes[0] != VERSION) {
      return null;
    }
    GenericRow row = codec.decode(Arrays.copyOfRange(bytes, 1, bytes.length));
    FieldStats[] stats = new FieldStats[columns];
    for (int i = 0; i < columns; i++) {
      stats[i] = new FieldStats(row.get(i), row.get(columns + i), (Long) row.get(2 * columns + i));
    }
    return stats;
  }
}
