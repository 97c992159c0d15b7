package dev.lockstep.engine.predicate;

import dev.lockstep.engine.types.RowType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * Parses a filter in a small SQL-like syntax against a row type:
 *
 * <pre>
 * expr      := term (OR term)*
 * term      := factor (AND factor)*
 * factor    := NOT factor | '(' expr ')' | column test
 * test      := (= | &lt;&gt; | != | &lt; | &lt;= | &gt; | &gt;=) literal
 *            | [NOT] IN '(' literal (, literal)* ')'
 *            | IS [NOT] NULL
 * literal   := number | 'text' | DATE 'yyyy-mm-dd' | TIMESTAMP 'yyyy-mm-dd hh:mm:ss[.ffffff]'
 *            | TRUE | FALSE | X'hex' | -number
 * column    := name | "quoted name" | `quoted name`
 * </pre>
 *
 * Keywords are case-insensitive; {@code ''} inside text is one quote. Errors are one line: the
 * 1-based position, what was expected and what was found, and a hint.
 */
public final class PredicateParser {

  private final PredicateBuilder builder;
  private final String text;
  private int pos;

  private PredicateParser(RowType rowType, String text) {
    this.builder = new PredicateBuilder(rowType);
    this.text = text;
  }

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException one line with the position, the problem and a hint
   */
  public static Predicate parse(RowType rowType, String text) {
    PredicateParser parser = new PredicateParser(rowType, text);
    parser.skipSpace();
    if (parser.pos >= text.length()) {
      throw new IllegalArgumentException(
          "The filter is empty; write a condition such as \"a = 1 AND b IS NOT NULL\".");
    }
    Predicate p = parser.expr();
    parser.skipSpace();
    if (parser.pos < text.length()) {
      throw parser.error("AND, OR or the end", "join conditions with AND or OR");
    }
    return p;
  }

  private Predicate expr() {
    List<Predicate> terms = new ArrayList<>();
    terms.add(term());
    while (keyword("OR")) {
      terms.add(term());
    }
    return terms.size() == 1 ? terms.get(0) : new Predicate.Or(terms);
  }

  private Predicate term() {
    List<Predicate> factors = new ArrayList<>();
    factors.add(factor());
    while (keyword("AND")) {
      factors.add(factor());
    }
    return factors.size() == 1 ? factors.get(0) : new Predicate.And(factors);
  }

  private Predicate factor() {
    if (keyword("NOT")) {
      return new Predicate.Not(factor());
    }
    skipSpace();
    if (symbol("(")) {
      Predicate p = expr();
      if (!symbol(")")) {
        throw error("')'", "close every '(' with ')'");
      }
      return p;
    }
    int columnAt = pos;
    String column = column();
    if (builder.rowType().indexOf(column) < 0) {
      pos = columnAt;
      throw error(
          "a column",
          "no column '" + column + "'; the columns are " + builder.rowType().names(),
          column);
    }
    try {
      return test(column);
    } catch (IllegalArgumentException e) {
      if (e.getMessage().startsWith("At position")) {
        throw e;
      }
      throw new IllegalArgumentException(
          "At position " + (columnAt + 1) + ": " + e.getMessage(), e);
    }
  }

  private Predicate test(String column) {
    if (keyword("IS")) {
      boolean not = keyword("NOT");
      if (!keyword("NULL")) {
        throw error("NULL", "write IS NULL or IS NOT NULL");
      }
      return not ? builder.isNotNull(column) : builder.isNull(column);
    }
    boolean not = keyword("NOT");
    if (keyword("IN")) {
      if (!symbol("(")) {
        throw error("'('", "write IN (1, 2, 3)");
      }
      List<Object> values = new ArrayList<>();
      do {
        values.add(literal());
      } while (symbol(","));
      if (!symbol(")")) {
        throw error("',' or ')'", "write IN (1, 2, 3)");
      }
      return not ? builder.notIn(column, values) : builder.in(column, values);
    }
    if (not) {
      throw error("IN", "write NOT IN (...), or NOT before the whole condition");
    }
    skipSpace();
    for (String op : new String[] {"<>", "!=", "<=", ">=", "=", "<", ">"}) {
      if (text.startsWith(op, pos)) {
        pos += op.length();
        return builder.compare(op, column, literal());
      }
    }
    throw error(
        "a comparison (=, <>, <, <=, >, >=), IN or IS", "write for example " + column + " = 1");
  }

  private Object literal() {
    skipSpace();
    if (pos >= text.length()) {
      throw error("a value", "numbers as 12 or -1.5, text in single quotes");
    }
    char c = text.charAt(pos);
    if (c == '\'') {
      return quoted();
    }
    if (c == '=') {
      throw error("a value", "compare with a single '=' (or <>, <, <=, >, >=)");
    }
    if (c == '-' || c == '+' || c == '.' || Character.isDigit(c)) {
      return number();
    }
    int at = pos;
    String word = word();
    switch (word.toUpperCase(Locale.ROOT)) {
      case "TRUE":
        return true;
      case "FALSE":
        return false;
      case "NULL":
        pos = at;
        throw error("a value", "a comparison with NULL is never true: use IS NULL or IS NOT NULL");
      case "DATE":
        skipSpace();
        return java.time.LocalDate.parse(dated("DATE", "DATE '2024-05-01'"));
      case "TIMESTAMP":
        skipSpace();
        String ts = dated("TIMESTAMP", "TIMESTAMP '2024-05-01 10:00:00'");
        return java.time.LocalDateTime.parse(
            ts.length() == 10 ? ts + "T00:00" : ts.replace(' ', 'T'));
      case "X":
        if (pos < text.length() && text.charAt(pos) == '\'') {
          String hex = quoted();
          try {
            return HexFormat.of().parseHex(hex);
          } catch (IllegalArgumentException e) {
            pos = at;
            throw error("hex digits", "write bytes as X'0a1b'");
          }
        }
        break;
      default:
        break;
    }
    pos = at;
    throw error("a value", "quote text with single quotes: 'abc'");
  }

  private String dated(String kind, String example) {
    int at = pos;
    if (pos >= text.length() || text.charAt(pos) != '\'') {
      throw error("a quoted " + kind.toLowerCase(Locale.ROOT), "write " + example);
    }
    String value = quoted();
    try {
      if (kind.equals("DATE")) {
        java.time.LocalDate.parse(value);
      } else {
        java.time.LocalDateTime.parse(
            value.length() == 10 ? value + "T00:00" : value.replace(' ', 'T'));
      }
    } catch (java.time.format.DateTimeParseException e) {
      pos = at;
      throw error("a valid " + kind.toLowerCase(Locale.ROOT), "write " + example);
    }
    return value;
  }

  private String quoted() {
    int start = pos;
    pos++;
    StringBuilder sb = new StringBuilder();
    while (pos < text.length()) {
      char c = text.charAt(pos++);
      if (c == '\'') {
        if (pos < text.length() && text.charAt(pos) == '\'') {
          sb.append('\'');
          pos++;
        } else {
          return sb.toString();
        }
      } else {
        sb.append(c);
      }
    }
    pos = start;
    throw error("a closing quote", "end text with ' (write '' for a quote inside)");
  }

  private Object number() {
    int start = pos;
    if (text.charAt(pos) == '-' || text.charAt(pos) == '+') {
      pos++;
    }
    while (pos < text.length()
        && (Character.isDigit(text.charAt(pos))
            || ".eE".indexOf(text.charAt(pos)) >= 0
            || ((text.charAt(pos) == '-' || text.charAt(pos) == '+')
                && "eE".indexOf(text.charAt(pos - 1)) >= 0))) {
      pos++;
    }
    String n = text.substring(start, pos);
    try {
      if (n.contains("e") || n.contains("E")) {
        return Double.parseDouble(n);
      }
      if (n.contains(".")) {
        return new BigDecimal(n);
      }
      BigInteger big = new BigInteger(n);
      return big.bitLength() < 64 ? (Object) big.longValue() : new BigDecimal(big);
    } catch (NumberFormatException e) {
      pos = start;
      throw error("a number", "write numbers as 12, -3 or 1.5");
    }
  }

  private String column() {
    skipSpace();
    if (pos >= text.length()) {
      throw error("a column", "a condition starts with a column name");
    }
    char c = text.charAt(pos);
    if (c == '"' || c == '`') {
      int end = text.indexOf(c, pos + 1);
      if (end < 0) {
        throw error("a closing " + c, "close the quoted column name");
      }
      String name = text.substring(pos + 1, end);
      pos = end + 1;
      return name;
    }
    String word = word();
    if (word.isEmpty()) {
      throw error("a column", "a condition starts with a column name");
    }
    return word;
  }

  private String word() {
    skipSpace();
    int start = pos;
    while (pos < text.length()
        && (Character.isLetterOrDigit(text.charAt(pos))
            || text.charAt(pos) == '_'
            || text.charAt(pos) == '$')) {
      pos++;
    }
    return text.substring(start, pos);
  }

  private boolean keyword(String keyword) {
    skipSpace();
    int end = pos + keyword.length();
    if (text.regionMatches(true, pos, keyword, 0, keyword.length())
        && (end >= text.length()
            || !(Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_'))) {
      pos = end;
      return true;
    }
    return false;
  }

  private boolean symbol(String symbol) {
    skipSpace();
    if (text.startsWith(symbol, pos)) {
      pos += symbol.length();
      return true;
    }
    return false;
  }

  private void skipSpace() {
    while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
      pos++;
    }
  }

  private IllegalArgumentException error(String expected, String hint) {
    skipSpace();
    String found;
    if (pos >= text.length()) {
      found = "the end";
    } else {
      int end = pos;
      while (end < text.length() && end - pos < 12 && !Character.isWhitespace(text.charAt(end))) {
        end++;
      }
      found = "'" + text.substring(pos, end) + "'";
    }
    return new IllegalArgumentException(
        "At position "
            + (pos + 1)
            + ": expected "
            + expected
            + ", found "
            + found
            + "; "
            + hint
            + ".");
  }

  private IllegalArgumentException error(String expected, String hint, String found) {
    return new IllegalArgumentException(
        "At position "
            + (pos + 1)
            + ": expected "
            + expected
            + ", found '"
            + found
            + "'; "
            + hint
            + ".");
  }
}
