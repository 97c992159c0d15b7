package dev.lockstep.fs;

import java.util.Objects;

/**
 * A location in a store: {@code scheme://authority/a/b/c} or a bare local path {@code /a/b/c}.
 *
 * <p>A path is kept as the exact string it was given, never URL-encoded or decoded, so that names
 * with spaces, unicode or {@code %} stay what the caller wrote. Each store maps the string to its
 * own addressing (an object key, a local file, an HDFS path). Trailing slashes are removed; {@code
 * //} inside the path part is folded to one slash.
 */
public final class Path implements Comparable<Path> {

  private static final String SCHEME_SEPARATOR = "://";

  private final String location;

  private Path(String location) {
    this.location = location;
  }

  /** Parses a location; a bare path (no scheme) is a local path. */
  public static Path of(String location) {
    Objects.requireNonNull(location, "location");
    if (location.isEmpty()) {
      throw new IllegalArgumentException("A path must not be empty");
    }
    int sep = location.indexOf(SCHEME_SEPARATOR);
    String prefix;
    String rest;
    if (sep > 0 && isScheme(location.substring(0, sep))) {
      int pathStart = location.indexOf('/', sep + SCHEME_SEPARATOR.length());
      if (pathStart < 0) {
        return new Path(location);
      }
      prefix = location.substring(0, pathStart);
      rest = location.substring(pathStart);
    } else {
      prefix = "";
      rest = location;
    }
    StringBuilder normalized = new StringBuilder(rest.length());
    char previous = 0;
    for (int i = 0; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c == '/' && previous == '/') {
        continue;
      }
      normalized.append(c);
      previous = c;
    }
    while (normalized.length() > 1 && normalized.charAt(normalized.length() - 1) == '/') {
      normalized.setLength(normalized.length() - 1);
    }
    return new Path(prefix + normalized);
  }

  private static boolean isScheme(String candidate) {
    if (candidate.isEmpty() || !Character.isLetter(candidate.charAt(0))) {
      return false;
    }
    for (int i = 1; i < candidate.length(); i++) {
      char c = candidate.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '+' || c == '-' || c == '.')) {
        return false;
      }
    }
    return true;
  }

  /** The scheme in lower case, or {@code null} for a bare local path. */
  public String scheme() {
    int sep = location.indexOf(SCHEME_SEPARATOR);
    if (sep > 0 && isScheme(location.substring(0, sep))) {
      return location.substring(0, sep).toLowerCase(java.util.Locale.ROOT);
    }
    return null;
  }

  /** The authority (bucket, host:port), or {@code ""} when there is none. */
  public String authority() {
    String scheme = scheme();
    if (scheme == null) {
      return "";
    }
    int start = location.indexOf(SCHEME_SEPARATOR) + SCHEME_SEPARATOR.length();
    int end = location.indexOf('/', start);
    return end < 0 ? location.substring(start) : location.substring(start, end);
  }

  /** The path part after the authority, starting with {@code /}, or {@code "/"} for the root. */
  public String pathPart() {
    String scheme = scheme();
    if (scheme == null) {
      return location;
    }
    int start = location.indexOf(SCHEME_SEPARATOR) + SCHEME_SEPARATOR.length();
    int end = location.indexOf('/', start);
    return end < 0 ? "/" : location.substring(end);
  }

  /** The last name of the path, {@code ""} for a root. */
  public String name() {
    String part = pathPart();
    int slash = part.lastIndexOf('/');
    return part.substring(slash + 1);
  }

  /** The parent, or {@code null} for a root. */
  public Path parent() {
    String part = pathPart();
    if (part.equals("/") || part.isEmpty()) {
      return null;
    }
    int slash = part.lastIndexOf('/');
    if (slash < 0) {
      return null;
    }
    String parentPart = slash == 0 ? "/" : part.substring(0, slash);
    int cut = location.length() - part.length();
    return new Path(location.substring(0, cut) + parentPart);
  }

  /** A child of this path; {@code name} may contain {@code /} for a deeper descendant. */
  public Path child(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("A child name must not be empty");
    }
    String base = location.endsWith("/") ? location : location + "/";
    return Path.of(base + (name.startsWith("/") ? name.substring(1) : name));
  }

  @Override
  public int compareTo(Path other) {
    return location.compareTo(other.location);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Path && ((Path) o).location.equals(location);
  }

  @Override
  public int hashCode() {
    return location.hashCode();
  }

  /** The exact location string. */
  @Override
  public String toString() {
    return location;
  }
}
