package dev.lockstep.engine.types;

import java.util.Objects;

/** One column: a stable id (kept across schema versions), a name and a type. */
public record DataField(int id, String name, DataType type) {
  public DataField {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    if (name.isBlank()) {
      throw new IllegalArgumentException("A column name must not be blank");
    }
  }
}
