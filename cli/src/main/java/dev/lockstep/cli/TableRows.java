package dev.lockstep.cli;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import java.io.BufferedReader;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rows from a CSV file (first line: column names, in any order; a missing nullable column is null)
 * or generated. Every row is parsed and checked before the caller writes anything, so that a bad
 * line leaves nothing half-written. An empty unquoted field is null; {@code ""} is an empty string.
 */
final class TableRows {

  private TableRows() {}

  static List<GenericRow> fromCsv(Path file, List<DataField> fields) throws IOException {
    List<GenericRow> rows = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String header = in.readLine();
      if (header == null) {
        throw new UserError("--csv " + file + " is empty; its first line must name the columns: "
            + names(fields));
      }
      List<String> columns = split(header, file, 1);
      int[] position = new int[fields.size()];
      java.util.Arrays.fill(position, -1);
      Map<String, Integer> index = new HashMap<>();
      for (int i = 0; i < fields.size(); i++) {
        index.put(fields.get(i).name(), i);
      }
      for (int c = 0; c < columns.size(); c++) {
        Integer i = index.get(columns.get(c).trim());
        if (i == null) {
          throw new UserError("--csv " + file + " line 1: unknown column '" + columns.get(c)
              + "'; the table's columns are " + names(fields));
        }
        position[i] = c;
      }
      String line;
      for (int number = 2; (line = in.readLine()) != null; number++) {
        if (line.isBlank()) {
          continue;
        }
        List<String> values = split(line, file, number);
        if (values.size() != columns.size()) {
          throw new UserError("--csv " + file + " line " + number + ": " + values.size()
              + " fields, the header has " + columns.size());
        }
        Object[] row = new Object[fields.size()];
        for (int i = 0; i < fields.size(); i++) {
          DataField f = fields.get(i);
          String text = position[i] < 0 ? null : values.get(position[i]);
          try {
            row[i] = parse(f.type(), text);
            f.type().validate(f.name(), row[i]);
          } catch (RuntimeException e) {
            throw new UserError("--csv " + file + " line " + number + ", column '" + f.name()
                + "': '" + text + "' is not a valid " + f.type() + " ("
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + ")");
          }
        }
        rows.add(GenericRow.of(row));
      }
    } catch (NoSuchFileException e) {
      throw new UserError("--csv " + file + " does not exist; give a CSV file whose first line"
          + " names the columns " + names(fields));
    }
    return rows;
  }

  /** {@code count} rows: row i holds i in numbers, "s-i" in strings, a day of 2024 in dates... */
  static List<GenericRow> generate(long count, long offset, List<DataField> fields,
      List<String> partitionKeys) {
    List<GenericRow> rows = new ArrayList<>();
    for (long n = offset; n < offset + count; n++) {
      Object[] row = new Object[fields.size()];
      for (int i = 0; i < fields.size(); i++) {
        boolean partition = partitionKeys.contains(fields.get(i).name());
        row[i] = generated(fields.get(i).type(), partition ? n % 4 : n);
      }
      rows.add(GenericRow.of(row));
    }
    return rows;
  }

  private static Object generated(DataType type, long n) {
    switch (type.root()) {
      case INT: return (int) n;
      case BIGINT: return n;
      case DOUBLE: return n / 2.0;
      case BOOLEAN: return n % 2 == 0;
      case BYTES: return Long.toString(n).getBytes(StandardCharsets.UTF_8);
      case DECIMAL: return BigDecimal.valueOf(n % (long) Math.pow(10, Math.min(18,
          Math.max(1, type.precision() - type.scale())))).setScale(type.scale(), RoundingMode.UNNECESSARY);
      case DATE: return LocalDate.of(2024, 1, 1).plusDays(n % 366);
      case TIMESTAMP: return LocalDateTime.of(2024, 1, 1, 0, 0).plusSeconds(n);
      default: return "s-" + n;
    }
  }

  private static Object parse(DataType type, String text) {
    if (text == null) {
      return null;
    }
    String t = type.root() == dev.lockstep.engine.types.DataTypeRoot.STRING ? text : text.trim();
    switch (type.root()) {
      case INT: return Integer.parseInt(t);
      case BIGINT: return Long.parseLong(t);
      case DOUBLE: return Double.parseDouble(t);
      case BOOLEAN:
        if (!t.equalsIgnoreCase("true") && !t.equalsIgnoreCase("false")) {
          throw new IllegalArgumentException("write true or false");
        }
        return Boolean.parseBoolean(t);
      case BYTES: return Base64.getDecoder().decode(t);
      case DECIMAL: return new BigDecimal(t).setScale(type.scale(), RoundingMode.UNNECESSARY);
      case DATE: return LocalDate.parse(t);
      case TIMESTAMP: return LocalDateTime.parse(t.replace(' ', 'T'));
      default: return text;
    }
  }

  /** One CSV line: commas separate, double quotes quote, "" inside quotes is a quote. */
  static List<String> split(String line, Path file, int number) {
    List<String> out = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    boolean wasQuoted = false;
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      if (quoted) {
        if (ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (ch == '"') {
          quoted = false;
        } else {
          field.append(ch);
        }
      } else if (ch == '"') {
        quoted = true;
        wasQuoted = true;
      } else if (ch == ',') {
        out.add(wasQuoted || field.length() > 0 ? field.toString() : null);
        field.setLength(0);
        wasQuoted = false;
      } else {
        field.append(ch);
      }
    }
    if (quoted) {
      throw new UserError("--csv " + file + " line " + number + ": a quote is not closed");
    }
    out.add(wasQuoted || field.length() > 0 ? field.toString() : null);
    return out;
  }

  /** Formats a value as a CSV field. */
  static String format(Object value) {
    if (value == null) {
      return "";
    }
    String s = value instanceof byte[] ? Base64.getEncoder().encodeToString((byte[]) value)
        : value instanceof BigDecimal ? ((BigDecimal) value).toPlainString() : value.toString();
    if (s.isEmpty() || s.contains(",") || s.contains("\"") || s.contains("\n")) {
      return "\"" + s.replace("\"", "\"\"") + "\"";
    }
    return s;
  }

  private static List<String> names(List<DataField> fields) {
    return fields.stream().map(DataField::name).toList();
  }
}
