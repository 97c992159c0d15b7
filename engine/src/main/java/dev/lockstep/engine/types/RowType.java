package dev.lockstep.engine.types;

import java.util.ArrayList;
import java.util.List;

/** An ordered list of columns with unique names. */
public record RowType(List<DataField> fields) {

  public RowType {
    fields = List.copyOf(fields);
    for (int i = 0; i < fields.size(); i++) {
      for (int j = 0; j < i; j++) {
        if (fields.get(i).name().equals(fields.get(j).name())) {
          throw new IllegalArgumentException("Column '" + fields.get(i).name() + "' appears twice");
        }
      }
    }
  }

  public int size() {
    return fields.size();
  }

  public DataField field(int index) {
    return fields.get(index);
  }

  public List<String> names() {
    List<String> names = new ArrayList<>();
    fields.forEach(f -> names.add(f.name()));
    return names;
  }

  /** The position of a column, or -1. */
  public int indexOf(String name) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The positions of {@code names}.
   *
   * @throws IllegalArgumentException naming an unknown column and the columns that exist
   */
  public int[] indexesOf(List<String> names) {
    int[] indexes = new int[names.size()];
    for (int i = 0; i < names.size(); i++) {
      indexes[i] = indexOf(names.get(i));
      if (indexes[i] < 0) {
        throw new IllegalArgumentException(
            "No column '" + names.get(i) + "'; the columns are " + names() + ".");
      }
    }
    return indexes;
  }

  /** The columns at {@code indexes}, in that order. */
  public RowType project(int[] indexes) {
    List<DataField> projected = new ArrayList<>();
    for (int index : indexes) {
      projected.add(fields.get(index));
    }
    return new RowType(projected);
  }
}
