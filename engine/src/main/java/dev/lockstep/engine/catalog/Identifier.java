package dev.lockstep.engine.catalog;

import java.util.Objects;

/** A table's name: database and table. Names may not contain {@code /} or start with a dot. */
public record Identifier(String database, String table) {

  public Identifier {
    check("database", database);
    check("table", table);
  }

  private static void check(String what, String name) {
    Objects.requireNonNull(name, what);
    if (name.isBlank() || name.contains("/") || name.startsWith(".")) {
      throw new IllegalArgumentException(
          "Invalid "
              + what
              + " name '"
              + name
              + "': it must not be blank, contain '/' or start with '.'.");
    }
  }

  /** Parses {@code database.table}. */
  public static Identifier parse(String fullName) {
    int dot = fullName.indexOf('.');
    if (dot <= 0 || dot == fullName.length() - 1) {
      throw new IllegalArgumentException(
          "Write a table name as 'database.table', not '" + fullName + "'.");
    }
    return new Identifier(fullName.substring(0, dot), fullName.substring(dot + 1));
  }

  public String fullName() {
    return database + "." + table;
  }

  @Override
  public String toString() {
    return fullName();
  }
}
