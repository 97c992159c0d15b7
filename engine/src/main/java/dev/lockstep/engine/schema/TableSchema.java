package dev.lockstep.engine.schema;

import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.RowType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One version of a table's schema, stored as {@code schema/schema-<id>} (JSON). Versions are never
 * changed once written; a new version gets the next id.
 *
 * <p>Rules checked on construction: at least one column; partition and primary-key columns exist
 * and appear once; primary-key columns are NOT NULL (a nullable key column is made NOT NULL); in a
 * primary-key table the partition columns are part of the primary key, so that one key lives in one
 * partition and one bucket.
 */
public record TableSchema(
    long id,
    List<DataField> fields,
    List<String> partitionKeys,
    List<String> primaryKeys,
    Map<String, String> options,
    long timeMillis) {

  public TableSchema {
    if (fields.isEmpty()) {
      throw new IllegalArgumentException("A table needs at least one column");
    }
    RowType rowType = new RowType(fields);
    rowType.indexesOf(partitionKeys);
    rowType.indexesOf(primaryKeys);
    requireDistinct("partition key", partitionKeys);
    requireDistinct("primary key", primaryKeys);
    if (!primaryKeys.isEmpty() && !primaryKeys.containsAll(partitionKeys)) {
      throw new IllegalArgumentException(
          "The primary key "
              + primaryKeys
              + " must contain every"
              + " partition key "
              + partitionKeys
              + ", so that one key lives in one partition.");
    }
    List<DataField> normalized = new ArrayList<>();
    for (DataField f : fields) {
      normalized.add(
          primaryKeys.contains(f.name()) && f.type().nullable()
              ? new DataField(f.id(), f.name(), f.type().notNull())
              : f);
    }
    fields = List.copyOf(normalized);
    partitionKeys = List.copyOf(partitionKeys);
    primaryKeys = List.copyOf(primaryKeys);
    options = Map.copyOf(options);
  }

  private static void requireDistinct(String what, List<String> names) {
    Set<String> seen = new HashSet<>();
    for (String name : names) {
      if (!seen.add(name)) {
        throw new IllegalArgumentException("Column '" + name + "' is listed twice as " + what);
      }
    }
  }

  /** The schema a {@link Schema} asks for, as version {@code id}. */
  public static TableSchema of(long id, Schema schema, long timeMillis) {
    return new TableSchema(
        id,
        schema.fields(),
        schema.partitionKeys(),
        schema.primaryKeys(),
        schema.options(),
        timeMillis);
  }

  public RowType rowType() {
    return new RowType(fields);
  }

  public boolean hasPrimaryKey() {
    return !primaryKeys.isEmpty();
  }

  public int[] primaryKeyIndexes() {
    return rowType().indexesOf(primaryKeys);
  }

  public int[] partitionIndexes() {
    return rowType().indexesOf(partitionKeys);
  }

  public RowType partitionType() {
    return rowType().project(partitionIndexes());
  }

  public RowType primaryKeyType() {
    return rowType().project(primaryKeyIndexes());
  }
}
