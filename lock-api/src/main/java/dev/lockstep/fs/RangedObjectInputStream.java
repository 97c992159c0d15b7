package dev.lockstep.fs;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * A {@link SeekableInputStream} over one version of an object in an object store, read with ranged
 * GETs. For store implementations (fs-s3 and fs-oss use it): the store says how to open a byte
 * range of the object and how to let go of an answer; this class keeps the positions and decides
 * when to skip, when to open a new range and when to discard a connection.
 *
 * <ol>
 *   <li>The store opens the object with one GET of the whole object. That answer fixes the length
 *       and the version (the store pins it, for example with {@code If-Match: <etag>}, in every
 *       {@link #openRange}), and its body, handed to the constructor, serves the first sequential
 *       reads: a small file costs one request.
 *   <li>Sequential reads stream from the open answer, never past the length.
 *   <li>{@link #seek} only moves the position. At the next read, a forward gap of at most {@code
 *       skipLimit} bytes is skipped on the open answer; any other gap lets go of it and opens
 *       {@code bytes=position-}.
 *   <li>{@link #readFully(long, byte[], int, int)} opens exactly {@code bytes=at-(at+len-1)} and
 *       does not move the stream.
 *   <li>An answer let go of is aborted (its connection discarded) when it failed or more than
 *       {@code drainLimit} of its bytes remain; otherwise it is closed, which drains it and keeps
 *       the connection pooled. An answer read to its end is closed at once.
 *   <li>A read that fails mid-stream lets go of the answer and, when the store asks for it ({@code
 *       reopenOnFailure}), is tried once more on a new range at the same position; then it fails
 *       naming the object and the position. An answer that ends before the length is an {@link
 *       EOFException}. Failures to open a range are the store's own, thrown as they are.
 *   <li>A store may open the object with a GET of its <em>last</em> bytes instead ({@code Range:
 *       bytes=-n}, which also tells the length) and hand them to the constructor as the {@code
 *       tail}. Reads and positioned reads in the tail are then served from memory, and the ranges
 *       opened below it end where the tail starts, so no byte of the tail is fetched twice. This is
 *       what columnar readers want: Parquet and ORC read the footer at the end first and then seek
 *       back to the column chunks, which then costs one GET, and an object no longer than the tail
 *       is read with the one GET that opened it.
 * </ol>
 *
 * <p>{@link #readFully(long, byte[], int, int)} touches no state of the stream, so several threads
 * may call it at once (positioned reads of a vectored read).
 *
 * <p>Not thread-safe, like every {@link InputStream}.
 *
 * @param <R> the store's answer to a GET: what {@link #body} reads and {@link #release} lets go of
 */
public abstract class RangedObjectInputStream<R> extends SeekableInputStream {

  private final String object;
  private final long length;
  private final long skipLimit;
  private final long drainLimit;
  private final boolean reopenOnFailure;

  /** The object's last bytes, held in memory (empty: none). */
  private final byte[] tail;

  /** Where {@link #tail} starts: {@code length} when there is none. Ranges end before it. */
  private final long tailStart;

  /** The open answer, or null. */
  private R answer;

  /** Position of the next byte the open answer's body yields. */
  private long answerPosition;

  /** Position of the next byte the caller reads. */
  private long position;

  private boolean closed;

  /**
   * @param object the object's name in messages (its URI)
   * @param length the object's length, from the first answer
   * @param first the answer to the GET of the whole object, serving reads from position 0; null to
   *     open a range at the first read
   * @param skipLimit the longest forward seek that skips on the open answer instead of a new GET
   * @param drainLimit the most bytes left in an answer that closing drains rather than aborts
   * @param reopenOnFailure whether a read that fails mid-stream is tried once more on a new range
   */
  protected RangedObjectInputStream(
      String object,
      long length,
      R first,
      long skipLimit,
      long drainLimit,
      boolean reopenOnFailure) {
    this(object, length, first, new byte[0], skipLimit, drainLimit, reopenOnFailure);
  }

  /**
   * A stream whose object was opened with a GET of its last bytes.
   *
   * @param tail the object's last {@code tail.length} bytes (all of them when as long as the
   *     object), served from memory
   */
  protected RangedObjectInputStream(
      String object,
      long length,
      byte[] tail,
      long skipLimit,
      long drainLimit,
      boolean reopenOnFailure) {
    this(object, length, null, tail, skipLimit, drainLimit, reopenOnFailure);
  }

  private RangedObjectInputStream(
      String object,
      long length,
      R first,
      byte[] tail,
      long skipLimit,
      long drainLimit,
      boolean reopenOnFailure) {
    if (tail.length > length) {
      throw new IllegalArgumentException(
          "A tail of " + tail.length + " bytes of " + object + " of length " + length);
    }
    this.object = object;
    this.length = length;
    this.skipLimit = skipLimit;
    this.drainLimit = drainLimit;
    this.reopenOnFailure = reopenOnFailure;
    this.answer = first;
    this.tail = tail;
    this.tailStart = length - tail.length;
  }

  /**
   * Sends one GET of bytes {@code first} to {@code last} (inclusive; {@code last < 0}: to the end)
   * of the version this stream reads. The store translates its failures: an object replaced since
   * it was opened fails with an {@link IOException} that says so, never with the new version's
   * bytes.
   */
  protected abstract R openRange(long first, long last) throws IOException;

  /**
   * The body of an answer from {@link #openRange} or the constructor: the same stream every time it
   * is asked for the same answer.
   */
  protected abstract InputStream body(R answer);

  /**
   * Lets go of an answer: with {@code abort}, discards its connection; otherwise closes it,
   * draining what is left so the connection can be reused. Never throws: the caller's state does
   * not depend on that connection any more.
   */
  protected abstract void release(R answer, boolean abort);

  /** The length of the object version being read. */
  public final long length() {
    return length;
  }

  @Override
  public final void seek(long newPosition) throws IOException {
    checkOpen();
    if (newPosition < 0 || newPosition > length) {
      throw new EOFException(
          "Cannot seek to " + newPosition + " in " + object + " of length " + length);
    }
    position = newPosition;
  }

  @Override
  public final long position() throws IOException {
    checkOpen();
    return position;
  }

  @Override
  public final int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public final int read(byte[] buffer, int offset, int len) throws IOException {
    checkOpen();
    Objects.checkFromIndexSize(offset, len, buffer.length);
    if (len == 0) {
      return 0;
    }
    if (position >= length) {
      return -1;
    }
    if (position >= tailStart) {
      int n = (int) Math.min(len, length - position);
      System.arraycopy(tail, (int) (position - tailStart), buffer, offset, n);
      position += n;
      return n;
    }
    int want = (int) Math.min(len, tailStart - position);
    for (int attempt = 1; ; attempt++) {
      positionAnswer();
      int n;
      try {
        n = body(answer).read(buffer, offset, want);
      } catch (IOException e) {
        letGo(true);
        if (reopenOnFailure && attempt == 1) {
          continue;
        }
        throw new IOException("Reading " + object + " at " + position + " failed", e);
      }
      if (n < 0) {
        letGo(true);
        throw new EOFException(
            object
                + " ended at "
                + position
                + ", before "
                + (tailStart == length
                    ? "its length " + length
                    : "the tail it was opened with at " + tailStart)
                + " (was it replaced while being read?)");
      }
      position += n;
      answerPosition += n;
      if (answerPosition == tailStart) {
        letGo(false); // read to its end: its connection goes back to the pool now
      }
      return n;
    }
  }

  @Override
  public final long skip(long n) throws IOException {
    checkOpen();
    long target = Math.min(length, position + Math.max(0, n));
    long skipped = target - position;
    position = target;
    return skipped;
  }

  @Override
  public final int available() throws IOException {
    checkOpen();
    if (position >= tailStart) {
      return (int) Math.max(0, length - position);
    }
    if (answer == null || position != answerPosition) {
      return 0;
    }
    return (int)
        Math.min(
            Integer.MAX_VALUE, Math.max(0, Math.min(body(answer).available(), length - position)));
  }

  /**
   * One GET of exactly this range (less what the tail holds, which is copied); the stream position
   * is unchanged, and no state of the stream is touched.
   */
  @Override
  public final void readFully(long at, byte[] buffer, int offset, int len) throws IOException {
    checkOpen();
    Objects.checkFromIndexSize(offset, len, buffer.length);
    if (at < 0 || at + len > length) {
      throw new EOFException(
          "Cannot read " + len + " bytes at " + at + " of " + object + " of length " + length);
    }
    if (at + len > tailStart) {
      int fromTail = (int) Math.min(len, at + len - tailStart);
      System.arraycopy(
          tail,
          (int) (Math.max(at, tailStart) - tailStart),
          buffer,
          offset + len - fromTail,
          fromTail);
      len -= fromTail;
    }
    if (len == 0) {
      return;
    }
    R ranged = openRange(at, at + len - 1);
    boolean whole = false;
    try {
      InputStream in = body(ranged);
      int done = 0;
      while (done < len) {
        int n = in.read(buffer, offset + done, len - done);
        if (n < 0) {
          throw new EOFException(
              object + " ended after " + done + " of " + len + " bytes at " + at);
        }
        done += n;
      }
      whole = true;
    } finally {
      release(ranged, !whole);
    }
  }

  @Override
  public final void close() {
    if (!closed) {
      closed = true;
      letGo(false);
    }
  }

  /**
   * Makes the open answer yield the byte at {@link #position}: skips ahead or opens a new range.
   */
  private void positionAnswer() throws IOException {
    if (answer != null && position != answerPosition) {
      long gap = position - answerPosition;
      if (gap > 0 && gap <= skipLimit) {
        try {
          body(answer).skipNBytes(gap);
          answerPosition += gap;
        } catch (IOException e) {
          letGo(true); // a new range below
        }
      } else {
        letGo(false);
      }
    }
    if (answer == null) {
      answer = openRange(position, tailStart == length ? -1 : tailStart - 1);
      answerPosition = position;
    }
  }

  private void letGo(boolean failed) {
    if (answer == null) {
      return;
    }
    R gone = answer;
    answer = null;
    release(gone, failed || tailStart - answerPosition > drainLimit);
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException("The stream of " + object + " is closed");
    }
  }
}
