package dev.lockstep.lock.jdbc;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A lock key as the lock table stores it: the SHA-256 of its UTF-8 bytes (64 hex digits, the
 * primary key) and the full key (kept for people reading the table).
 *
 * <p>The hash makes the row's identity exact and of fixed size whatever the key holds: case,
 * quotes, unicode and length never meet a column limit, a collation or an index limit. Keys are
 * compared by their exact UTF-8 bytes: {@code db.T} and {@code db.t} are different locks
 * everywhere.
 *
 * @param key the key as given
 * @param hash the hex SHA-256 of the key's UTF-8 bytes
 */
record LockKey(String key, String hash) {

  /** The longest key accepted, in UTF-8 bytes: far above any {@code database.table}. */
  static final int MAX_KEY_BYTES = 16_384;

  /**
   * Validates and hashes a key.
   *
   * @throws IllegalArgumentException for an empty key, a key with a NUL character or a lone
   *     surrogate (neither can be stored as text in every database), or a key longer than {@value
   *     #MAX_KEY_BYTES} UTF-8 bytes
   */
  static LockKey of(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("A lock key must not be empty.");
    }
    if (key.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          "The lock key '"
              + key.replace('\0', '?')
              + "' contains a NUL"
              + " character, which PostgreSQL cannot store as text. Use a key without NUL.");
    }
    ByteBuffer utf8;
    try {
      utf8 =
          StandardCharsets.UTF_8
              .newEncoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .encode(CharBuffer.wrap(key));
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "The lock key contains a lone UTF-16 surrogate and cannot be"
              + " written as UTF-8. Use well-formed text.",
          e);
    }
    byte[] bytes = new byte[utf8.remaining()];
    utf8.get(bytes);
    if (bytes.length > MAX_KEY_BYTES) {
      throw new IllegalArgumentException(
          "The lock key is "
              + bytes.length
              + " UTF-8 bytes long; the JDBC"
              + " lock accepts at most "
              + MAX_KEY_BYTES
              + ". Use a shorter key (a table's key is"
              + " 'database.table').");
    }
    try {
      return new LockKey(
          key, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every Java runtime has SHA-256", e);
    }
  }
}
