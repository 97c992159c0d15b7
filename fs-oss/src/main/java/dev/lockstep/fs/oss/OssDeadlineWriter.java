package dev.lockstep.fs.oss;

import com.aliyun.oss.ClientException;
import com.aliyun.oss.OSS;
import com.aliyun.oss.OSSException;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsWriteDeadline;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SupportsWriteDeadline#writeWithin} on OSS: one PutObject that the SDK aborts at the
 * deadline.
 *
 * <ol>
 *   <li>Time left is zero or less: {@link IOException}, nothing sent.
 *   <li>Open an SDK client for this write alone: request timeout = the time left in whole
 *       milliseconds (or {@value OssOptions#REQUEST_TIMEOUT} when that is shorter), SDK retries off,
 *       one connection.
 *   <li>Send one PutObject with {@code Content-MD5}, the write id ({@value OssPublisher#WRITE_ID})
 *       and, for {@code overwrite=false}, {@code x-oss-forbid-overwrite: true}. Never retried here:
 *       the deadline bounds one request, and the caller (the commit protocol) retries after
 *       reading back.
 *   <li>Decide:
 *       <ul>
 *         <li>answered 2xx: written;
 *         <li>409 {@code FileAlreadyExists}: {@link FileAlreadyExistsException}; the only attempt
 *             was refused, so nothing of ours was written;
 *         <li>another 4xx, a connection that was never made, or a failure before sending: a plain
 *             {@link IOException}, nothing written;
 *         <li>the deadline hit (the SDK aborts the HTTP request, which closes the connection: a body
 *             still being sent ends short and OSS discards it), a reset, a lost answer, a 5xx, an
 *             interrupt: {@link UncertainWriteException}, since a body sent whole may have been
 *             applied.
 *       </ul>
 *   <li>Shut the client down.
 * </ol>
 *
 * <p>Why a client per write. SDK 3.18.1 has no per-request timeout: {@code WebServiceRequest} carries
 * none, and the request timeout ({@code ClientConfiguration.setRequestTimeoutEnabled} +
 * {@code setRequestTimeout}) belongs to the client, whose {@code TimeoutServiceClient} runs each
 * HTTP request on its own thread, waits for it at most that long and then calls {@code
 * HttpRequestBase.abort()}. One shared client would need its timeout changed per write, which two
 * concurrent writes would race on, or a monitor that queues every deadline write of the store
 * behind the slowest one (spending the waiting writes' deadlines). A client per write has neither
 * problem, and is cheap: measured against the OSS test server (loopback, 300 writes of 2 KB each
 * after warm-up), building and shutting down a client took 0.3 ms, and its PutObject 1.5 ms against
 * 0.3 to 0.5 ms on a warm client (a new connection and a new timeout thread). Against OSS the extra
 * cost is one new TCP and TLS connection per deadline write, one per commit under a lock.
 *
 * <p>Precision: the SDK starts its clock when it hands the request to its thread, after the client
 * is built and the request signed (well under a millisecond after the time left was read, and the
 * time left is rounded down to whole milliseconds); {@code commit.lease-margin} covers far more.
 */
final class OssDeadlineWriter {

  private static final Logger LOG = LoggerFactory.getLogger(OssDeadlineWriter.class);

  private final OssOptions options;
  private final OssErrors errors;

  OssDeadlineWriter(OssOptions options, OssErrors errors) {
    this.options = options;
    this.errors = errors;
  }

  /** Writes {@code content} at {@code key} within {@code timeout}, as the class javadoc says. */
  void write(OssKey key, Path path, byte[] content, boolean forbidOverwrite, Duration timeout)
      throws IOException {
    long start = System.nanoTime();
    long budget = nanosOf(timeout);
    String writeId = UUID.randomUUID().toString();
    String md5 = Base64.getEncoder().encodeToString(OssPublisher.md5(content, content.length));
    long leftMillis = (budget - (System.nanoTime() - start)) / 1_000_000;
    if (leftMillis < 1) {
      throw new IOException("The deadline of the write to " + path + " (" + describe(timeout)
          + ") passed before anything was sent; nothing was written. Under a lock this means the"
          + " lease had too little time left: see 'commit.lease-margin' and the lock's lease time.");
    }
    if (!options.requestTimeout().isZero()) {
      leftMillis = Math.min(leftMillis, Math.max(1, options.requestTimeout().toMillis()));
    }
    long requestTimeout = Math.min(leftMillis, Integer.MAX_VALUE);
    OSS client = OssFileIO.newClient(options, 0, 1, requestTimeout);
    try {
      client.putObject(OssPublisher.putRequest(key, content, content.length, md5, writeId,
          forbidOverwrite));
    } catch (RuntimeException e) {
      IOException outcome = outcome(e, path, requestTimeout);
      LOG.debug("Deadline write of {} ({} ms) failed: {}", path, requestTimeout, outcome.toString());
      throw outcome;
    } finally {
      client.shutdown();
    }
  }

  private IOException outcome(RuntimeException e, Path path, long requestTimeout) {
    if (e instanceof OSSException) {
      OSSException answer = (OSSException) e;
      if (OssErrors.isCode(e, "FileAlreadyExists")) {
        FileAlreadyExistsException conflict = new FileAlreadyExistsException(path.toString(), null,
            "an object is already there (OSS 409 FileAlreadyExists); nothing was written");
        conflict.initCause(e);
        return conflict;
      }
      if (answer.getErrorCode() == null) {
        return new UncertainWriteException(path, "the request failed without an OSS answer that"
            + " says it was refused (" + answer.getMessage() + ")", e);
      }
      if (OssErrors.isServerError(e)) {
        return new UncertainWriteException(path, "OSS answered " + answer.getErrorCode()
            + " (request id " + answer.getRequestId() + "), which may follow an applied write", e);
      }
      return errors.translate(e, "PutObject", path);
    }
    if (e instanceof ClientException) {
      if (causedBy(e, InterruptedException.class) || causedBy(e, InterruptedIOException.class)) {
        Thread.currentThread().interrupt();
        return new UncertainWriteException(path, "interrupted while the write was in flight", e);
      }
      if (causedBy(e, TimeoutException.class)) {
        return new UncertainWriteException(path, "the request did not finish within its deadline ("
            + requestTimeout + " ms) and the SDK aborted it; a body still being sent is"
            + " discarded, one sent whole may have been applied", e);
      }
      if (!OssErrors.neverSent(e)) {
        return new UncertainWriteException(path, "the connection failed after the request was"
            + " sent, or its answer was lost (" + ((ClientException) e).getErrorCode() + ")", e);
      }
    }
    return errors.translate(e, "PutObject", path);
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  /** {@code timeout} in nanoseconds, at most {@link Long#MAX_VALUE}; negative stays negative. */
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
