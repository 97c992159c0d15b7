package dev.lockstep.fs.conditional;

/**
 * What one failed publishing request means, as the store reads its own error ({@link
 * StoreAnswers#classify}).
 *
 * @param kind what the publisher does next
 * @param mayHaveLanded whether the request may have reached the store and taken effect although it
 *     failed (a reset or silent connection after sending, a timeout, a 5xx); false only when it
 *     provably was not processed (never sent, a 4xx, a throttling answer)
 */
public record Answer(Kind kind, boolean mayHaveLanded) {

  /** The publisher's next step for a failed request. */
  public enum Kind {
    /** The store refused the write because an object is at the key (S3 412, OSS 409). */
    ALREADY_EXISTS,
    /** A multipart upload to complete is gone: completed (perhaps by us), aborted or expired. */
    UPLOAD_GONE,
    /** Worth sending again after a pause (5xx, timeout, reset, a conditional-request race). */
    RETRY,
    /** Sending again will not help (a 4xx such as access denied). */
    STOP,
    /** The calling thread was interrupted; stop at once. */
    INTERRUPTED
  }

  public static Answer alreadyExists() {
    return new Answer(Kind.ALREADY_EXISTS, false);
  }

  public static Answer uploadGone() {
    return new Answer(Kind.UPLOAD_GONE, false);
  }

  public static Answer retry(boolean mayHaveLanded) {
    return new Answer(Kind.RETRY, mayHaveLanded);
  }

  public static Answer stop(boolean mayHaveLanded) {
    return new Answer(Kind.STOP, mayHaveLanded);
  }

  public static Answer interrupted(boolean mayHaveLanded) {
    return new Answer(Kind.INTERRUPTED, mayHaveLanded);
  }
}
