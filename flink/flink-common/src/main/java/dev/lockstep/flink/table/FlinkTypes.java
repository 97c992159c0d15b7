package dev.lockstep.flink.table;

import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;

/** Column types and schemas between Flink SQL and the engine. */
public final class FlinkTypes {

  private FlinkTypes() {}

  /** The Flink type of an engine column. */
  public static org.apache.flink.table.types.DataType toFlink(DataType type) {
    org.apache.flink.table.types.DataType t;
    switch (type.root()) {
      case INT:
        t = DataTypes.INT();
        break;
      case BIGINT:
        t = DataTypes.BIGINT();
        break;
      case DOUBLE:
        t = DataTypes.DOUBLE();
        break;
      case BOOLEAN:
        t = DataTypes.BOOLEAN();
        break;
      case STRING:
        t = DataTypes.STRING();
        break;
      case BYTES:
        t = DataTypes.BYTES();
        break;
      case DECIMAL:
        t = DataTypes.DECIMAL(type.precision(), type.scale());
        break;
      case DATE:
        t = DataTypes.DATE();
        break;
      case TIMESTAMP:
        t = DataTypes.TIMESTAMP(6);
        break;
      case TINYINT:
        t = DataTypes.TINYINT();
        break;
      case SMALLINT:
        t = DataTypes.SMALLINT();
        break;
      case FLOAT:
        t = DataTypes.FLOAT();
        break;
      case CHAR:
        t = DataTypes.CHAR(type.length());
        break;
      case VARCHAR:
        t = DataTypes.VARCHAR(type.length());
        break;
      case TIMESTAMP_LTZ:
        t = DataTypes.TIMESTAMP_LTZ(type.precision());
        break;
      default:
        throw new IllegalStateException("Unknown engine type " + type);
    }
    return type.nullable() ? t.nullable() : t.notNull();
  }

  /** The engine type of a Flink column; unsupported types fail naming the column. */
  public static DataType toEngine(String column, LogicalType type) {
    DataType t;
    switch (type.getTypeRoot()) {
      case INTEGER:
        t = DataType.intType();
        break;
      case BIGINT:
        t = DataType.bigint();
        break;
      case DOUBLE:
        t = DataType.doubleType();
        break;
      case BOOLEAN:
        t = DataType.booleanType();
        break;
      case TINYINT:
        t = DataType.tinyint();
        break;
      case SMALLINT:
        t = DataType.smallint();
        break;
      case FLOAT:
        t = DataType.floatType();
        break;
      case CHAR:
        t = DataType.charType(((CharType) type).getLength());
        break;
      case VARCHAR:
        int length = ((VarCharType) type).getLength();
        // Flink's STRING is VARCHAR of the greatest length.
        t = length == VarCharType.MAX_LENGTH ? DataType.string() : DataType.varchar(length);
        break;
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        int precision = ((LocalZonedTimestampType) type).getPrecision();
        if (precision > DataType.MAX_TIMESTAMP_LTZ_PRECISION) {
          throw new ValidationException(
              "Column '"
                  + column
                  + "' is "
                  + type
                  + "; Lockstep stores instants with microsecond precision: use TIMESTAMP_LTZ(6)"
                  + " or less.");
        }
        t = DataType.timestampLtz(precision);
        break;
      case BINARY:
      case VARBINARY:
        t = DataType.bytes();
        break;
      case DECIMAL:
        DecimalType d = (DecimalType) type;
        t = DataType.decimal(d.getPrecision(), d.getScale());
        break;
      case DATE:
        t = DataType.date();
        break;
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        if (((TimestampType) type).getPrecision() > 6) {
          throw new ValidationException(
              "Column '"
                  + column
                  + "' is "
                  + type
                  + "; Lockstep"
                  + " stores timestamps with microsecond precision: use TIMESTAMP(6) or less.");
        }
        t = DataType.timestamp();
        break;
      default:
        throw new ValidationException(
            "Column '"
                + column
                + "' has type "
                + type
                + ", which"
                + " Lockstep tables do not store. Use TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE,"
                + " BOOLEAN, STRING, CHAR(n), VARCHAR(n), BYTES, DECIMAL(p, s), DATE, TIMESTAMP(p"
                + " <= 6) or TIMESTAMP_LTZ(p <= 6).");
    }
    return type.isNullable() ? t : t.notNull();
  }

  /** The Flink schema of an engine table (columns and primary key). */
  public static org.apache.flink.table.api.Schema toFlink(TableSchema schema) {
    org.apache.flink.table.api.Schema.Builder b = org.apache.flink.table.api.Schema.newBuilder();
    RowType rt = schema.rowType();
    for (int i = 0; i < rt.size(); i++) {
      b.column(rt.field(i).name(), toFlink(rt.field(i).type()));
    }
    if (!schema.primaryKeys().isEmpty()) {
      b.primaryKey(schema.primaryKeys());
    }
    return b.build();
  }

  /**
   * The engine schema of a Flink table: physical columns, primary key, partition keys and the given
   * table options.
   */
  public static Schema toEngine(ResolvedCatalogTable table, Map<String, String> options) {
    ResolvedSchema resolved = table.getResolvedSchema();
    Schema.Builder b = Schema.newBuilder();
    List<String> columns = new ArrayList<>();
    for (Column c : resolved.getColumns()) {
      if (!c.isPhysical()) {
        throw new ValidationException(
            "Column '"
                + c.getName()
                + "' is computed or metadata;"
                + " Lockstep tables store physical columns only.");
      }
      columns.add(c.getName());
      b.column(c.getName(), toEngine(c.getName(), c.getDataType().getLogicalType()));
    }
    resolved.getPrimaryKey().ifPresent(pk -> b.primaryKey(pk.getColumns().toArray(new String[0])));
    b.partitionKeys(table.getPartitionKeys().toArray(new String[0]));
    b.options(options);
    return b.build();
  }
}
