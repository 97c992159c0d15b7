package dev.lockstep.engine.snapshot;

import com.fasterxml.jackson.core.io.JsonEOFException;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.EOFException;
import java.io.IOException;

/**
 * A table file that is there but cannot be read: empty, truncated or unparsable. Thrown by the
 * readers of snapshots, schemas, manifest lists and manifests instead of the parser's own exception
 * (which names neither the file nor the damage: {@code EOFException}, {@code JsonEOFException}), so
 * that every command can say which file is damaged and how. A missing file stays a {@link
 * java.io.FileNotFoundException}: expiration and concurrent commits give that one a meaning of its
 * own.
 */
public final class DamagedFileException extends IOException {

  private final String kind;
  private final String file;
  private final String damage;

  public DamagedFileException(String kind, String file, String damage, Throwable cause) {
    super(kind + " " + file + " is " + damage, cause);
    this.kind = kind;
    this.file = file;
    this.damage = damage;
  }

  /** snapshot, schema, manifest list, manifest or data file. */
  public String kind() {
    return kind;
  }

  public String file() {
    return file;
  }

  /** empty, truncated at byte N, or unparsable (the parser's words). */
  public String damage() {
    return damage;
  }

  /**
   * The exception for {@code kind} file {@code path} of {@code length} bytes that failed to parse
   * with {@code cause}.
   */
  public static DamagedFileException of(String kind, Path path, long length, Throwable cause) {
    return new DamagedFileException(kind, path.toString(), damage(length, cause), cause);
  }

  /** As {@link #of(String, Path, long, Throwable)}, asking the store for the length. */
  public static IOException of(String kind, FileIO io, Path path, Throwable cause) {
    long length;
    try {
      length = io.getStatus(path).length();
    } catch (IOException | RuntimeException gone) {
      return gone instanceof IOException ? (IOException) gone : new IOException(gone);
    }
    return of(kind, path, length, cause);
  }

  /**
   * {@code failure} of reading {@code kind} file {@code path} as what it means: unchanged when the
   * file is missing, the read was interrupted or it is named already; otherwise a {@link
   * DamagedFileException}.
   */
  public static IOException wrap(String kind, FileIO io, Path path, Exception failure) {
    if (failure instanceof java.io.FileNotFoundException
        || failure instanceof java.nio.file.NoSuchFileException
        || failure instanceof java.io.InterruptedIOException
        || failure instanceof java.nio.channels.ClosedByInterruptException
        || failure instanceof DamagedFileException) {
      return (IOException) failure;
    }
    if (Thread.currentThread().isInterrupted()) {
      return new java.io.InterruptedIOException("interrupted reading " + path);
    }
    return of(kind, io, path, failure);
  }

  /** What is wrong with a file of {@code length} bytes that failed to parse with {@code cause}. */
  public static String damage(long length, Throwable cause) {
    if (length == 0) {
      return "empty";
    }
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof EOFException || t instanceof JsonEOFException) {
        return "truncated at byte " + length;
      }
    }
    String message =
        cause.getMessage() == null
            ? cause.getClass().getSimpleName()
            : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    int cut = message.indexOf('\n');
    message = cut < 0 ? message : message.substring(0, cut);
    cut = message.indexOf(" at [Source");
    message = cut < 0 ? message : message.substring(0, cut);
    return "unparsable ("
        + (message.length() > 120 ? message.substring(0, 120) + "..." : message.trim())
        + ")";
  }
}
