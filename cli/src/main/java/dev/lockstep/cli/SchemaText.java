package dev.lockstep.cli;

import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.types.DataType;
import java.util.ArrayList;
import java.util.List;

/** Parses {@code --schema "k INT NOT NULL, v BIGINT, amount DECIMAL(12, 2)"}. */
final class SchemaText {

  private SchemaText() {}

  static Schema.Builder parse(String text) {
    Schema.Builder builder = Schema.newBuilder();
    List<String> columns = splitTopLevel(text);
    if (columns.isEmpty() || text.isBlank()) {
      throw new UserError(
          "--schema is empty; write for example --schema \"k INT NOT NULL, v BIGINT,"
              + " s STRING\"");
    }
    for (String column : columns) {
      String c = column.trim();
      int space = c.indexOf(' ');
      if (space <= 0) {
        throw new UserError("--schema column '" + c + "' needs a name and a type, e.g. 'v BIGINT'");
      }
      String name = c.substring(0, space).trim();
      try {
        builder.column(name, DataType.parse(c.substring(space + 1)));
      } catch (IllegalArgumentException e) {
        throw new UserError("--schema column '" + name + "': " + e.getMessage());
      }
    }
    return builder;
  }

  /** Splits at commas outside parentheses. */
  private static List<String> splitTopLevel(String text) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch == '(') {
        depth++;
      } else if (ch == ')') {
        depth--;
      } else if (ch == ',' && depth == 0) {
        parts.add(text.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(text.substring(start));
    return parts;
  }
}
