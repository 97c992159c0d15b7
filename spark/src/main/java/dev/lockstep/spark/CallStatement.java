package dev.lockstep.spark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code CALL [catalog.]sys.name(arg, ...)} where each argument is a literal (a quoted string, a
 * number, TRUE, FALSE or NULL), positional or named ({@code name => value}); positional arguments
 * come first.
 *
 * @param catalog the catalog, or null for the current one
 * @param procedure the procedure name, lower case
 * @param positional positional arguments, in order
 * @param named named arguments, names lower case
 */
record CallStatement(
    String catalog, String procedure, List<Object> positional, Map<String, Object> named) {

  private static final Pattern CALL = Pattern.compile("(?is)^\\s*CALL\\s+.*");
  private static final Pattern EXPLAIN_CALL =
      Pattern.compile("(?is)^\\s*EXPLAIN\\s+(\\w+\\s+)?CALL\\s+.*");

  static boolean isCall(String text) {
    return CALL.matcher(text).matches();
  }

  static boolean isExplainCall(String text) {
    return EXPLAIN_CALL.matcher(text).matches();
  }

  String name() {
    return (catalog == null ? "" : catalog + ".") + "sys." + procedure;
  }

  /** Removes {@code --} line comments and {@code /* *}{@code /} block comments outside quotes. */
  static String stripComments(String sql) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = i + 1;
        while (end < sql.length() && sql.charAt(end) != c) {
          end += sql.charAt(end) == '\\' ? 2 : 1;
        }
        end = Math.min(end + 1, sql.length());
        out.append(sql, i, end);
        i = end;
      } else if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? sql.length() : end;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? sql.length() : end + 2;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString().trim();
  }

  static CallStatement parse(String text) {
    Tokens t = new Tokens(text);
    t.expectWord("CALL");
    List<String> parts = new ArrayList<>();
    parts.add(t.identifier());
    while (t.peek('.')) {
      t.next();
      parts.add(t.identifier());
    }
    String catalog;
    if (parts.size() == 3 && parts.get(1).equalsIgnoreCase("sys")) {
      catalog = parts.get(0);
    } else if (parts.size() == 2 && parts.get(0).equalsIgnoreCase("sys")) {
      catalog = null;
    } else {
      throw t.error(
          "a procedure is named [catalog.]sys.<procedure>, got " + String.join(".", parts));
    }
    String procedure = parts.get(parts.size() - 1).toLowerCase(Locale.ROOT);
    t.expect('(');
    List<Object> positional = new ArrayList<>();
    Map<String, Object> named = new LinkedHashMap<>();
    if (!t.peek(')')) {
      do {
        int mark = t.pos;
        String maybeName = t.tryIdentifier();
        if (maybeName != null && t.peekArrow()) {
          t.pos += 2;
          String key = maybeName.toLowerCase(Locale.ROOT);
          if (named.put(key, t.literal()) != null) {
            throw t.error("argument '" + key + "' is given twice");
          }
        } else {
          t.pos = mark;
          if (!named.isEmpty()) {
            throw t.error("a positional argument follows a named one");
          }
          positional.add(t.literal());
        }
      } while (t.peek(',') && t.next() == ',');
    }
    t.expect(')');
    t.skipSpace();
    if (t.pos < t.text.length() && t.text.charAt(t.pos) == ';') {
      t.pos++;
    }
    t.skipSpace();
    if (t.pos != t.text.length()) {
      throw t.error("unexpected text after the closing parenthesis");
    }
    return new CallStatement(catalog, procedure, positional, named);
  }

  private static final class Tokens {
    final String text;
    int pos;

    Tokens(String text) {
      this.text = text;
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException(
          "Cannot parse the CALL statement at position "
              + pos
              + ": "
              + what
              + " (write CALL catalog.sys.procedure(table => 'db.t', arg => value))");
    }

    void skipSpace() {
      while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
        pos++;
      }
    }

    boolean peek(char c) {
      skipSpace();
      return pos < text.length() && text.charAt(pos) == c;
    }

    boolean peekArrow() {
      skipSpace();
      return text.startsWith("=>", pos);
    }

    char next() {
      skipSpace();
      return text.charAt(pos++);
    }

    void expect(char c) {
      if (!peek(c)) {
        throw error("expected '" + c + "'");
      }
      pos++;
    }

    void expectWord(String word) {
      String w = tryIdentifier();
      if (w == null || !w.equalsIgnoreCase(word)) {
        throw error("expected " + word);
      }
    }

    String tryIdentifier() {
      skipSpace();
      if (pos >= text.length()) {
        return null;
      }
      char c = text.charAt(pos);
      if (c == '`') {
        int end = text.indexOf('`', pos + 1);
        if (end < 0) {
          throw error("unclosed `");
        }
        String id = text.substring(pos + 1, end);
        pos = end + 1;
        return id;
      }
      if (!Character.isLetter(c) && c != '_') {
        return null;
      }
      int start = pos;
      while (pos < text.length()
          && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_')) {
        pos++;
      }
      return text.substring(start, pos);
    }

    String identifier() {
      String id = tryIdentifier();
      if (id == null) {
        throw error("expected a name");
      }
      return id;
    }

    Object literal() {
      skipSpace();
      if (pos >= text.length()) {
        throw error("expected a value");
      }
      char c = text.charAt(pos);
      if (c == '\'' || c == '"') {
        StringBuilder s = new StringBuilder();
        pos++;
        while (pos < text.length() && text.charAt(pos) != c) {
          char ch = text.charAt(pos);
          if (ch == '\\' && pos + 1 < text.length()) {
            pos++;
            ch = text.charAt(pos);
          }
          s.append(ch);
          pos++;
        }
        if (pos >= text.length()) {
          throw error("unclosed string");
        }
        pos++;
        return s.toString();
      }
      if (c == '-' || c == '+' || Character.isDigit(c)) {
        int start = pos;
        pos++;
        while (pos < text.length()
            && (Character.isDigit(text.charAt(pos)) || text.charAt(pos) == '.')) {
          pos++;
        }
        String number = text.substring(start, pos);
        if (pos < text.length() && (text.charAt(pos) == 'L' || text.charAt(pos) == 'l')) {
          pos++;
        }
        return number.contains(".")
            ? (Object) Double.parseDouble(number)
            : (Object) Long.parseLong(number);
      }
      String word = tryIdentifier();
      if (word != null) {
        switch (word.toUpperCase(Locale.ROOT)) {
          case "TRUE":
            return Boolean.TRUE;
          case "FALSE":
            return Boolean.FALSE;
          case "NULL":
            return null;
          default:
            break;
        }
      }
      throw error("expected a literal value (a quoted string, a number, TRUE, FALSE or NULL)");
    }
  }
}
