package dev.lockstep.engine.schema;

import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a caller asks for when creating a table: columns, partition keys, primary key and options.
 * Built with {@link #newBuilder()}; validated when the table is created ({@link TableSchema}).
 */
public record Schema(
    List<DataField> fields,
    List<String> partitionKeys,
    List<String> primaryKeys,
    Map<String, String> options) {

  public Schema {
    fields = List.copyOf(fields);
    partitionKeys = List.copyOf(partitionKeys);
    primaryKeys = List.copyOf(primaryKeys);
    options = Map.copyOf(options);
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  /** Collects columns and settings in order. */
  public static final class Builder {
    private final List<DataField> fields = new ArrayList<>();
    private final List<String> partitionKeys = new ArrayList<>();
    private final List<String> primaryKeys = new ArrayList<>();
    private final Map<String, String> options = new LinkedHashMap<>();

    public Builder column(String name, DataType type) {
      fields.add(new DataField(fields.size(), name, type));
      return this;
    }

    public Builder partitionKeys(String... names) {
      partitionKeys.addAll(List.of(names));
      return this;
    }

    public Builder primaryKey(String... names) {
      primaryKeys.addAll(List.of(names));
      return this;
    }

    public Builder option(String key, String value) {
      options.put(key, value);
      return this;
    }

    public Builder options(Map<String, String> values) {
      options.putAll(values);
      return this;
    }

    public Schema build() {
      return new Schema(fields, partitionKeys, primaryKeys, options);
    }
  }
}
