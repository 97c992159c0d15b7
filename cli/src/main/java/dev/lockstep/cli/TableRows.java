package dev.lockstep.cli;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.DataTypeRoot;
import dev.lockstep.engine.types.TextCast;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.apache.commons.csv.QuoteMode;

/**
 * Rows from a CSV file (first line: column names, in any order; a missing nullable column is null)
 * or generated. Every row is parsed and checked before the caller writes anything, so that a bad
 * line leaves nothing half-written. An empty unquoted field is null; {@code ""} is an empty string.
 * CSV is read and written by Apache Commons CSV (RFC 4180): a quoted field may hold commas, quotes
 * and line breaks, and what {@code table read} prints, {@code table write --csv} reads back
 * unchanged.
 */
final class TableRows {

  private TableRows() {}

  /** How CSV is read: RFC 4180, quoted fields may hold commas, quotes and newlines. */
  private static final CSVFormat READ =
      CSVFormat.RFC4180
          .builder()
          // ALL_NON_NULL makes the parser tell an empty unquoted field (null) from "" (empty
          // string).
          .setQuoteMode(QuoteMode.ALL_NON_NULL)
          .setIgnoreEmptyLines(true)
          .get();

  /** How CSV is written: quotes only where needed, null as an empty unquoted field. */
  private static final CSVFormat WRITE =
      CSVFormat.RFC4180.builder().setQuoteMode(QuoteMode.MINIMAL).setRecordSeparator('\n').get();

  /** An empty string must be quoted, or it would read back as null. */
  private static final CSVFormat WRITE_QUOTED = WRITE.builder().setQuoteMode(QuoteMode.ALL).get();

  /**
   * The optional CSV column of {@code table write} that holds each row's kind: {@code +I}, {@code
   * -U}, {@code +U} or {@code -D} (empty: {@code +I}); {@code table read --row-kind} prints it
   * first.
   */
  static final String ROW_KIND_COLUMN = "_ROW_KIND";

  static List<GenericRow> fromCsv(Path file, List<DataField> fields) throws IOException {
    return fromCsv(file.toString(), read(file, fields), fields, null, false, null);
  }

  /** The name of the standard input as {@code --csv} takes it. */
  static final String STDIN = "-";

  /**
   * The text of a CSV file (UTF-8; {@code -} is the standard input), without a leading UTF-8 byte
   * order mark (spreadsheet exports write one).
   */
  static String read(Path file, List<DataField> fields) throws IOException {
    String content;
    if (file.toString().equals(STDIN)) {
      content = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
    } else {
      try {
        content = Files.readString(file, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        throw new UserError(
            "--csv "
                + file
                + " does not exist; give a CSV file whose first line"
                + " names the columns "
                + names(fields));
      } catch (java.nio.charset.MalformedInputException e) {
        throw new UserError(
            "--csv " + file + " is not UTF-8 text; save it as UTF-8 (CSV UTF-8 in a spreadsheet)");
      }
    }
    return content.startsWith("\uFEFF") ? content.substring(1) : content;
  }

  /** Rows {@code --skip-bad-rows} skipped: how many, and the first one's message. */
  static final class BadRows {
    private long count;
    private String first;

    void skip(String message) {
      if (count++ == 0) {
        first = message;
      }
    }

    long count() {
      return count;
    }

    /** For the result line: empty when none were skipped. */
    String summary() {
      return count == 0
          ? ""
          : "; skipped "
              + count
              + " bad row(s) (--skip-bad-rows), the first: "
              + first.replaceFirst("^--csv ", "");
    }
  }

  /**
   * Values that {@code CAST(text AS CHAR(n) / VARCHAR(n))} cut to the column's length (Paimon's
   * cast semantics, {@link TextCast#toCharacter}): how many, and where the first was.
   */
  static final class Cuts {
    private long count;
    private String first;

    void cut(String where) {
      if (count++ == 0) {
        first = where;
      }
    }

    long count() {
      return count;
    }

    /** For the result line: empty when nothing was cut. */
    String summary() {
      return count == 0
          ? ""
          : "; cut "
              + count
              + " value(s) longer than their CHAR/VARCHAR column to its length (as CAST does),"
              + " the first: "
              + first;
    }
  }

  static List<GenericRow> fromCsv(
      String name,
      String content,
      List<DataField> fields,
      List<RowKind> kinds,
      boolean retractions,
      BadRows skip)
      throws IOException {
    return fromCsv(name, content, fields, kinds, retractions, skip, null);
  }

  /**
   * @param name the file's name in messages ({@code -}: the standard input)
   * @param kinds when not null, a {@value #ROW_KIND_COLUMN} column is accepted and each row's kind
   *     is added here ({@code +I} without the column); when null that column is refused
   * @param retractions whether {@code -U} and {@code -D} are accepted (primary-key tables)
   * @param skip when not null, a row that does not parse is skipped and counted here; when null it
   *     stops the load (nothing is written)
   * @param cuts when not null, counts the CHAR/VARCHAR values cut to their length
   */
  static List<GenericRow> fromCsv(
      String name,
      String content,
      List<DataField> fields,
      List<RowKind> kinds,
      boolean retractions,
      BadRows skip,
      Cuts cuts)
      throws IOException {
    String file = name.equals(STDIN) ? "- (standard input)" : name;
    List<GenericRow> rows = new ArrayList<>();
    LineNumbers lines = new LineNumbers(content);
    try (CSVParser parser = CSVParser.parse(content, READ)) {
      Iterator<CSVRecord> records = parser.iterator();
      if (!records.hasNext()) {
        throw new UserError(
            "--csv " + file + " is empty; its first line must name the columns: " + names(fields));
      }
      List<String> columns = records.next().toList();
      int[] position = new int[fields.size()];
      java.util.Arrays.fill(position, -1);
      Map<String, Integer> index = new HashMap<>();
      for (int i = 0; i < fields.size(); i++) {
        index.put(fields.get(i).name(), i);
      }
      int kindPosition = -1;
      for (int c = 0; c < columns.size(); c++) {
        String column = columns.get(c) == null ? "" : columns.get(c);
        Integer i = index.get(column.trim());
        if (i == null && column.trim().equals(ROW_KIND_COLUMN)) {
          if (kinds == null) {
            throw new UserError(
                "--csv "
                    + file
                    + " line 1: column '"
                    + ROW_KIND_COLUMN
                    + "' (row"
                    + " kinds) is read only by 'table write'; drop it from this file");
          }
          kindPosition = c;
          continue;
        }
        if (i == null) {
          throw new UserError(
              "--csv "
                  + file
                  + " line 1: unknown column '"
                  + column
                  + "'; the table's columns are "
                  + names(fields));
        }
        position[i] = c;
      }
      while (records.hasNext()) {
        CSVRecord record = records.next();
        long number = lines.lineOf(record.getCharacterPosition());
        List<String> values = record.toList();
        if (values.size() == 1
            && (values.get(0) == null || values.get(0).isBlank())
            && columns.size() > 1) {
          continue; // a blank line
        }
        try {
          rows.add(
              row(
                  file,
                  number,
                  values,
                  columns.size(),
                  fields,
                  position,
                  kinds,
                  kindPosition,
                  retractions,
                  cuts));
        } catch (UserError bad) {
          if (skip == null) {
            throw bad;
          }
          skip.skip(bad.getMessage());
        }
      }
    } catch (UncheckedIOException e) {
      // Commons CSV names the line where the unfinished quoted field starts.
      throw new UserError(
          "--csv "
              + file
              + ": a quote is not closed, or a quoted field is followed"
              + " by text ("
              + e.getCause().getMessage()
              + ")");
    }
    return rows;
  }

  /** One record as a row (its kind added to {@code kinds}), or a {@link UserError}. */
  private static GenericRow row(
      String file,
      long number,
      List<String> values,
      int columns,
      List<DataField> fields,
      int[] position,
      List<RowKind> kinds,
      int kindPosition,
      boolean retractions,
      Cuts cuts) {
    if (values.size() != columns) {
      throw new UserError(
          "--csv "
              + file
              + " line "
              + number
              + ": "
              + values.size()
              + " fields, the header has "
              + columns);
    }
    Object[] row = new Object[fields.size()];
    String cut = null;
    for (int i = 0; i < fields.size(); i++) {
      DataField f = fields.get(i);
      String text = position[i] < 0 ? null : values.get(position[i]);
      if (cut == null
          && text != null
          && isCharacter(f.type())
          && TextCast.truncates(f.type(), text)) {
        cut = file + " line " + number + ", column '" + f.name() + "'";
      }
      try {
        row[i] = parse(f.type(), text);
        f.type().validate(f.name(), row[i]);
      } catch (RuntimeException e) {
        throw new UserError(
            "--csv "
                + file
                + " line "
                + number
                + ", column '"
                + f.name()
                + "': '"
                + text
                + "' is not a valid "
                + f.type()
                + " ("
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                + ")");
      }
    }
    if (kinds != null) {
      RowKind kind = RowKind.INSERT;
      String text = kindPosition < 0 ? null : values.get(kindPosition);
      if (text != null && !text.isBlank()) {
        try {
          kind = RowKind.fromShortString(text);
        } catch (IllegalArgumentException e) {
          throw new UserError(
              "--csv "
                  + file
                  + " line "
                  + number
                  + ", column '"
                  + ROW_KIND_COLUMN
                  + "': '"
                  + text
                  + "' is not a row kind; write +I, -U, +U or -D"
                  + " (empty means +I)");
        }
      }
      if (kind.isRetract() && !retractions) {
        throw new UserError(
            "--csv "
                + file
                + " line "
                + number
                + ", column '"
                + ROW_KIND_COLUMN
                + "': "
                + kind
                + " removes a key, and an append table has none;"
                + " write only +I or +U rows to it");
      }
      kinds.add(kind);
    }
    if (cut != null && cuts != null) {
      cuts.cut(cut);
    }
    return GenericRow.of(row);
  }

  /** The 1-based line of a character position, for positions that only grow. */
  private static final class LineNumbers {
    private final String text;
    private int scanned;
    private long line = 1;

    LineNumbers(String text) {
      this.text = text;
    }

    long lineOf(long position) {
      for (; scanned < position && scanned < text.length(); scanned++) {
        if (text.charAt(scanned) == '\n') {
          line++;
        }
      }
      return line;
    }
  }

  /** {@code count} rows: row i holds i in numbers, "s-i" in strings, a day of 2024 in dates... */
  static List<GenericRow> generate(
      long count, long offset, List<DataField> fields, List<String> partitionKeys) {
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
      case INT:
        return (int) n;
      case BIGINT:
        return n;
      case DOUBLE:
        return n / 2.0;
      case BOOLEAN:
        return n % 2 == 0;
      case BYTES:
        return Long.toString(n).getBytes(StandardCharsets.UTF_8);
      case DECIMAL:
        return BigDecimal.valueOf(
                n % (long) Math.pow(10, Math.min(18, Math.max(1, type.precision() - type.scale()))))
            .setScale(type.scale(), RoundingMode.UNNECESSARY);
      case DATE:
        return LocalDate.of(2024, 1, 1).plusDays(n % 366);
      case TIMESTAMP:
        return LocalDateTime.of(2024, 1, 1, 0, 0).plusSeconds(n);
      case TINYINT:
        return (byte) n;
      case SMALLINT:
        return (short) n;
      case FLOAT:
        return n / 2.0f;
      case CHAR:
      case VARCHAR:
        return TextCast.toCharacter(type, "s-" + n);
      case TIMESTAMP_LTZ:
        return Instant.parse("2024-01-01T00:00:00Z").plusSeconds(n);
      default:
        return "s-" + n;
    }
  }

  private static boolean isCharacter(DataType type) {
    return type.root() == DataTypeRoot.CHAR || type.root() == DataTypeRoot.VARCHAR;
  }

  private static Object parse(DataType type, String text) {
    if (text == null) {
      return null;
    }
    String t = type.root() == DataTypeRoot.STRING ? text : text.trim();
    switch (type.root()) {
      case TINYINT:
      case SMALLINT:
      case FLOAT:
      case CHAR:
      case VARCHAR:
      case TIMESTAMP_LTZ:
        // Paimon's CAST from text; CHAR and VARCHAR keep blanks, as STRING does.
        return TextCast.parse(type, text);
      case INT:
        return Integer.parseInt(t);
      case BIGINT:
        return Long.parseLong(t);
      case DOUBLE:
        return Double.parseDouble(t);
      case BOOLEAN:
        if (!t.equalsIgnoreCase("true") && !t.equalsIgnoreCase("false")) {
          throw new IllegalArgumentException("write true or false");
        }
        return Boolean.parseBoolean(t);
      case BYTES:
        return Base64.getDecoder().decode(t);
      case DECIMAL:
        return new BigDecimal(t).setScale(type.scale(), RoundingMode.UNNECESSARY);
      case DATE:
        return LocalDate.parse(t);
      case TIMESTAMP:
        return LocalDateTime.parse(t.replace(' ', 'T'));
      default:
        return text;
    }
  }

  /**
   * Appends one CSV record (and its line break) to {@code out}: fields are quoted only where needed
   * (a comma, quote or line break; a start with space, '!', '"' or '#'; a trailing space), {@code
   * ""} for an empty string, and an empty unquoted field for null; bytes are Base64, decimals
   * plain.
   */
  static void appendRecord(Appendable out, List<?> values) {
    try {
      for (int i = 0; i < values.size(); i++) {
        Object value = values.get(i);
        String text =
            value == null
                ? null
                : value instanceof byte[]
                    ? Base64.getEncoder().encodeToString((byte[]) value)
                    : value instanceof BigDecimal
                        ? ((BigDecimal) value).toPlainString()
                        : value.toString();
        if (text == null) {
          if (i > 0) {
            out.append(WRITE.getDelimiterString());
          }
        } else {
          (text.isEmpty() ? WRITE_QUOTED : WRITE).print(text, out, i == 0);
        }
      }
      WRITE.println(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> names(List<DataField> fields) {
    return fields.stream().map(DataField::name).toList();
  }
}
