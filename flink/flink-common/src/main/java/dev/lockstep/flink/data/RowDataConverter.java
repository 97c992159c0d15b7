package dev.lockstep.flink.data;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.DataTypeRoot;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.engine.types.TextCast;
import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

/**
 * Converts between Flink's {@link RowData} (internal SQL format) and the engine's {@link
 * GenericRow}, column by column, for a given engine row type. Not thread-safe is fine: it holds no
 * mutable state.
 */
public final class RowDataConverter implements Serializable {

  private static final long serialVersionUID = 1L;

  private final TableShape shape;
  private final int[] projection;

  /** Converts full rows of the table. */
  public RowDataConverter(TableShape shape) {
    this(shape, null);
  }

  /** Converts rows holding the table's columns {@code projection} (in that order). */
  public RowDataConverter(TableShape shape, int[] projection) {
    this.shape = shape;
    this.projection = projection;
  }

  private int column(int pos) {
    return projection == null ? pos : projection[pos];
  }

  private DataType type(int pos) {
    RowType rt = shape.rowType();
    return rt.field(projection == null ? pos : projection[pos]).type();
  }

  private int arity() {
    return projection == null ? shape.rowType().size() : projection.length;
  }

  public GenericRow toEngine(RowData row) {
    int n = arity();
    Object[] values = new Object[n];
    for (int i = 0; i < n; i++) {
      DataType type = type(i);
      int precision =
          type.root() == DataTypeRoot.TIMESTAMP_LTZ
              ? shape.timestampPrecision(column(i), type.precision())
              : shape.timestampPrecision(column(i));
      values[i] = row.isNullAt(i) ? null : toEngine(row, i, type, precision);
    }
    return GenericRow.wrap(values);
  }

  /**
   * A full-width engine row holding only {@code columns} of {@code row} (the others null): what
   * routing a row needs, without converting its other values (strings above all).
   */
  public GenericRow toEngine(RowData row, int[] columns) {
    Object[] values = new Object[arity()];
    for (int i : columns) {
      values[i] =
          row.isNullAt(i) ? null : toEngine(row, i, type(i), shape.timestampPrecision(column(i)));
    }
    return GenericRow.wrap(values);
  }

  private static Object toEngine(RowData row, int i, DataType type, int timestampPrecision) {
    switch (type.root()) {
      case INT:
        return row.getInt(i);
      case BIGINT:
        return row.getLong(i);
      case DOUBLE:
        return row.getDouble(i);
      case BOOLEAN:
        return row.getBoolean(i);
      case STRING:
        return row.getString(i).toString();
      case BYTES:
        return row.getBinary(i);
      case DECIMAL:
        return row.getDecimal(i, type.precision(), type.scale()).toBigDecimal();
      case DATE:
        return LocalDate.ofEpochDay(row.getInt(i));
      case TIMESTAMP:
        return row.getTimestamp(i, timestampPrecision)
            .toLocalDateTime()
            .truncatedTo(ChronoUnit.MICROS);
      case TINYINT:
        return row.getByte(i);
      case SMALLINT:
        return row.getShort(i);
      case FLOAT:
        return row.getFloat(i);
      case CHAR:
      case VARCHAR:
        // Paimon's cast to the column's length: cut, and for CHAR blank-padded.
        return TextCast.toCharacter(type, row.getString(i).toString());
      case TIMESTAMP_LTZ:
        return TextCast.truncate(
            row.getTimestamp(i, timestampPrecision).toInstant(), type.precision());
      default:
        throw new IllegalStateException("Unknown engine type " + type);
    }
  }

  public GenericRowData toFlink(GenericRow row) {
    int n = arity();
    GenericRowData out = new GenericRowData(n);
    for (int i = 0; i < n; i++) {
      Object v = row.get(i);
      out.setField(i, v == null ? null : toFlink(v, type(i)));
    }
    return out;
  }

  private static Object toFlink(Object v, DataType type) {
    switch (type.root()) {
      case STRING:
      case CHAR:
      case VARCHAR:
        return StringData.fromString((String) v);
      case TIMESTAMP_LTZ:
        return TimestampData.fromInstant((java.time.Instant) v);
      case DECIMAL:
        return DecimalData.fromBigDecimal((BigDecimal) v, type.precision(), type.scale());
      case DATE:
        return (int) ((LocalDate) v).toEpochDay();
      case TIMESTAMP:
        return TimestampData.fromLocalDateTime((LocalDateTime) v);
      default:
        return v;
    }
  }
}
