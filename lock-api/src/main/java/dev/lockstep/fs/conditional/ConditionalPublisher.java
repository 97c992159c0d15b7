package dev.lockstep.fs.conditional;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes an object on an object store (S3 {@code If-None-Match: *}, OSS {@code
 * x-oss-forbid-overwrite}) so that a lost answer is never reported as someone else's win, and a
 * deadline-bounded write never lands long after its deadline. The store supplies only {@link
 * StoreAnswers} (how to read its errors), the request itself and a read-back of the object's owner.
 *
 * <p>{@link #publish}, for one write tagged with a unique write id (user metadata {@value
 * #WRITE_ID}), sent by a client without SDK retries:
 *
 * <ol>
 *   <li>Send one attempt. Success: ours; return.
 *   <li>"Already exists" while no earlier attempt may have landed: someone else's object, {@link
 *       FileAlreadyExistsException}.
 *   <li>"Already exists", or "upload gone" on a multipart complete, after an attempt that may have
 *       landed: read the owner back. Ours: return. Another's: a conflict for an exclusive write
 *       (ours cannot have landed, or it would still be there), uncertain for an overwrite (ours may
 *       have landed before it). Absent or cannot tell: {@link UncertainWriteException}. "Upload
 *       gone" while nothing may have landed: a plain failure.
 *   <li>Worth retrying (5xx, timeout, reset, a conditional-request race): back off (exponential
 *       from the base delay, capped, jittered by half) and send again; remember whether the failed
 *       attempt may have landed.
 *   <li>Not worth retrying: stop. If an attempt may have landed, read back as in 3, where "absent"
 *       stays uncertain (a delayed request may land later); otherwise a plain failure.
 *   <li>Attempts exhausted: as in 5.
 * </ol>
 *
 * <p>An interrupt stops the loop at once: uncertain if an attempt may have landed, else a failure;
 * the interrupt flag stays set.
 *
 * <p>Why not the SDK's retries: when attempt 1 lands but its answer is lost, attempt 2 finds the
 * object and answers "already exists". Taken at face value that reports our own win as someone
 * else's, and the commit protocol would then give up a snapshot that is ours.
 *
 * <p>{@link #writeWithin}: one request whose client aborts it at the deadline, never retried here
 * (the commit protocol retries after reading back). Nothing left of the deadline: a plain failure,
 * nothing sent. "Already exists": a conflict, nothing written. A failure that may have landed (the
 * deadline hit while the request was in flight, a lost answer, a 5xx): uncertain. Otherwise a plain
 * failure.
 */
public final class ConditionalPublisher {

  /** User metadata key carrying the unique id of the write that published an object. */
  public static final String WRITE_ID = "lockstep-write-id";

  private static final Logger LOG = LoggerFactory.getLogger(ConditionalPublisher.class);

  /**
   * How often and how patiently {@link #publish} sends.
   *
   * @param maxAttempts attempts in all, at least 1
   * @param baseDelay the pause before the second attempt; it doubles per attempt
   * @param maxDelay the longest pause
   * @param attemptsOption the option key that sets {@code maxAttempts}, for messages
   */
  public record Retries(
      int maxAttempts, Duration baseDelay, Duration maxDelay, String attemptsOption) {}

  /** One request, sent once; fails with the store client's unchecked exception. */
  @FunctionalInterface
  public interface Attempt {
    void send();
  }

  /** One request whose client aborts it after {@code timeLeft}. */
  @FunctionalInterface
  public interface DeadlineAttempt {
    void send(Duration timeLeft);
  }

  /** Reads back whose object is at the key; never throws (failures are added to {@code cause}). */
  @FunctionalInterface
  public interface ReadBack {
    Ownership read(Exception cause);
  }

  private final StoreAnswers store;
  private final Retries retries;

  public ConditionalPublisher(StoreAnswers store, Retries retries) {
    if (retries.maxAttempts() < 1) {
      throw new IllegalArgumentException(
          "'" + retries.attemptsOption() + "' must be at least 1, not " + retries.maxAttempts());
    }
    this.store = store;
    this.retries = retries;
  }

  /**
   * Publishes as the class javadoc numbers it.
   *
   * @param action the request's name in messages, e.g. {@code PutObject}
   * @param exclusive whether the write must not replace an object (a conditional create)
   * @throws FileAlreadyExistsException another writer's object is there; ours was not published
   * @throws UncertainWriteException ours may or may not be there
   * @throws IOException ours was not published
   */
  public void publish(
      Path path, String action, boolean exclusive, Attempt attempt, ReadBack readBack)
      throws IOException {
    boolean mayHaveLanded = false;
    RuntimeException last = null;
    for (int n = 1; n <= retries.maxAttempts(); n++) {
      if (n > 1) {
        pause(n - 1, path, mayHaveLanded, last);
      }
      try {
        attempt.send();
        return;
      } catch (RuntimeException e) {
        last = e;
        Answer answer = store.classify(e);
        switch (answer.kind()) {
          case INTERRUPTED -> {
            Thread.currentThread().interrupt();
            if (mayHaveLanded || answer.mayHaveLanded()) {
              throw new UncertainWriteException(
                  path, "interrupted during a write that may have landed", e);
            }
            throw store.failure(e, action, path);
          }
          case ALREADY_EXISTS, UPLOAD_GONE -> {
            if (!mayHaveLanded) {
              throw answer.kind() == Answer.Kind.ALREADY_EXISTS
                  ? conflict(path, e)
                  : store.failure(e, action, path);
            }
            resolve(path, exclusive, readBack, e, false);
            return;
          }
          case STOP -> {
            if (mayHaveLanded || answer.mayHaveLanded()) {
              resolve(path, exclusive, readBack, e, true);
              return;
            }
            throw store.failure(e, action, path);
          }
          case RETRY -> {
            mayHaveLanded |= answer.mayHaveLanded();
            LOG.debug(
                "{} of {} failed on attempt {} of {} ({}landed maybe: {})",
                action,
                path,
                n,
                retries.maxAttempts(),
                mayHaveLanded ? "" : "not ",
                e.toString());
          }
          default -> throw new IllegalStateException("unknown answer " + answer);
        }
      }
    }
    if (mayHaveLanded) {
      resolve(path, exclusive, readBack, last, true);
      return;
    }
    IOException failure = store.failure(last, action, path);
    throw new IOException(
        "Gave up "
            + action
            + " of "
            + path
            + " after "
            + retries.maxAttempts()
            + " attempts (option '"
            + retries.attemptsOption()
            + "'); nothing was published. Last"
            + " error: "
            + failure.getMessage(),
        failure);
  }

  /**
   * Sends one request bounded by what is left of {@code timeout} since {@code startNanos}, as the
   * class javadoc says. The attempt gets the time left, in whole milliseconds.
   *
   * @throws FileAlreadyExistsException an object is there; nothing was written
   * @throws UncertainWriteException the content may or may not be there
   * @throws IOException nothing was written (for example the deadline passed before sending)
   */
  public void writeWithin(
      Path path, String action, long startNanos, Duration timeout, DeadlineAttempt attempt)
      throws IOException {
    long leftMillis = (nanosOf(timeout) - (System.nanoTime() - startNanos)) / 1_000_000;
    if (leftMillis < 1) {
      throw new IOException(
          "The deadline of the write to "
              + path
              + " ("
              + describe(timeout)
              + ") passed before anything was sent; nothing was written. Under a lock this means the"
              + " lease had too little time left: see 'commit.lease-margin' and the lock's lease time.");
    }
    Duration left = Duration.ofMillis(leftMillis);
    try {
      attempt.send(left);
    } catch (RuntimeException e) {
      Answer answer = store.classify(e);
      IOException outcome;
      if (answer.kind() == Answer.Kind.ALREADY_EXISTS) {
        FileAlreadyExistsException conflict =
            new FileAlreadyExistsException(
                path.toString(),
                null,
                "an object is already there ("
                    + store.alreadyExistsAnswer()
                    + "); nothing was written");
        conflict.initCause(e);
        outcome = conflict;
      } else if (answer.kind() == Answer.Kind.INTERRUPTED) {
        Thread.currentThread().interrupt();
        outcome =
            answer.mayHaveLanded()
                ? new UncertainWriteException(path, "interrupted while the write was in flight", e)
                : store.failure(e, action, path);
      } else if (answer.mayHaveLanded()) {
        outcome =
            new UncertainWriteException(
                path,
                "the request did not finish within its deadline ("
                    + leftMillis
                    + " ms) or its answer was lost; a body still being sent is discarded, one"
                    + " sent whole may have been applied ("
                    + e
                    + ")",
                e);
      } else {
        outcome = store.failure(e, action, path);
      }
      LOG.debug("Deadline write of {} ({} ms) failed: {}", path, leftMillis, outcome.toString());
      throw outcome;
    }
  }

  /**
   * Decides a write that may have landed by reading the owner back: returns when it is ours.
   *
   * @param absentIsUncertain whether "nothing there" may still change (a delayed attempt may land)
   *     rather than contradict what the store said
   */
  private void resolve(
      Path path,
      boolean exclusive,
      ReadBack readBack,
      RuntimeException cause,
      boolean absentIsUncertain)
      throws IOException {
    Ownership ownership = readBack.read(cause);
    switch (ownership) {
      case OURS -> LOG.debug("{} is our own earlier attempt", path);
      case THEIRS -> {
        if (exclusive) {
          throw conflict(path, cause);
        }
        throw new UncertainWriteException(
            path,
            "an attempt may have landed, and another write's"
                + " object is there now (last error: "
                + cause
                + ")",
            cause);
      }
      case ABSENT ->
          throw new UncertainWriteException(
              path,
              "an attempt may have landed, yet"
                  + " nothing is there now"
                  + (absentIsUncertain ? "" : " although the store said something" + " was")
                  + " (last error: "
                  + cause
                  + ")",
              cause);
      default ->
          throw new UncertainWriteException(
              path,
              "an attempt may have landed and reading"
                  + " the object back did not tell whose it is (last error: "
                  + cause
                  + ")",
              cause);
    }
  }

  private void pause(int retry, Path path, boolean mayHaveLanded, RuntimeException last)
      throws IOException {
    long base = retries.baseDelay().toNanos();
    long max = retries.maxDelay().toNanos();
    long delay = retry >= 62 ? max : Math.min(max, base << Math.min(retry - 1, 30));
    long jittered = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
    try {
      Thread.sleep(Duration.ofNanos(jittered).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (mayHaveLanded) {
        UncertainWriteException uncertain =
            new UncertainWriteException(
                path,
                "interrupted while"
                    + " retrying a write that may have landed (last error: "
                    + last
                    + ")",
                last);
        uncertain.addSuppressed(e);
        throw uncertain;
      }
      InterruptedIOException interrupted =
          new InterruptedIOException(
              "Interrupted while retrying the write of " + path + "; nothing was published");
      interrupted.initCause(last);
      throw interrupted;
    }
  }

  private FileAlreadyExistsException conflict(Path path, Exception cause) {
    FileAlreadyExistsException conflict =
        new FileAlreadyExistsException(
            path.toString(),
            null,
            "another writer created it first (" + store.alreadyExistsAnswer() + ")");
    conflict.initCause(cause);
    return conflict;
  }

  /** {@code timeout} in nanoseconds, saturated; negative stays negative. */
  private static long nanosOf(Duration timeout) {
    try {
      return timeout.toNanos();
    } catch (ArithmeticException e) {
      return timeout.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
    }
  }

  private static String describe(Duration timeout) {
    try {
      return Durations.format(timeout);
    } catch (ArithmeticException e) {
      return timeout.toString();
    }
  }
}
