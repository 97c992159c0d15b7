package dev.lockstep.fs.oss;

import com.aliyun.oss.OSS;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsWriteDeadline;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.conditional.ObjectKey;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;

/**
 * {@link SupportsWriteDeadline#writeWithin} on OSS: one PutObject that the SDK aborts at the
 * deadline.
 *
 * <ol>
 *   <li>Time left is zero or less: {@link IOException}, nothing sent.
 *   <li>Open an SDK client for this write alone: request timeout = the time left in whole
 *       milliseconds (or {@value OssOptions#REQUEST_TIMEOUT} when that is shorter), SDK retries
 *       off, one connection.
 *   <li>Send one PutObject with {@code Content-MD5}, the write id ({@value OssPublisher#WRITE_ID})
 *       and, for {@code overwrite=false}, {@code x-oss-forbid-overwrite: true}. Never retried here:
 *       the deadline bounds one request, and the caller (the commit protocol) retries after reading
 *       back.
 *   <li>Decide (in {@link dev.lockstep.fs.conditional.ConditionalPublisher#writeWithin}):
 *       <ul>
 *         <li>answered 2xx: written;
 *         <li>409 {@code FileAlreadyExists}: {@link FileAlreadyExistsException}; the only attempt
 *             was refused, so nothing of ours was written;
 *         <li>another 4xx, a connection that was never made, or a failure before sending: a plain
 *             {@link IOException}, nothing written;
 *         <li>the deadline hit (the SDK aborts the HTTP request, which closes the connection: a
 *             body still being sent ends short and OSS discards it), a reset, a lost answer, a 5xx,
 *             an interrupt: {@link UncertainWriteException}, since a body sent whole may have been
 *             applied.
 *       </ul>
 *   <li>Shut the client down.
 * </ol>
 *
 * <p>Why a client per write. SDK 3.18.1 has no per-request timeout: {@code WebServiceRequest}
 * carries none, and the request timeout ({@code ClientConfiguration.setRequestTimeoutEnabled} +
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

  private final OssOptions options;
  private final OssPublisher publisher;

  OssDeadlineWriter(OssOptions options, OssPublisher publisher) {
    this.options = options;
    this.publisher = publisher;
  }

  /** Writes {@code content} at {@code key} within {@code timeout}, as the class javadoc says. */
  void write(ObjectKey key, Path path, byte[] content, boolean forbidOverwrite, Duration timeout)
      throws IOException {
    long start = System.nanoTime();
    String writeId = UUID.randomUUID().toString();
    String md5 = Base64.getEncoder().encodeToString(OssPublisher.md5(content, content.length));
    publisher
        .publisher()
        .writeWithin(
            path,
            "PutObject",
            start,
            timeout,
            left -> {
              long leftMillis = left.toMillis();
              if (!options.requestTimeout().isZero()) {
                leftMillis = Math.min(leftMillis, Math.max(1, options.requestTimeout().toMillis()));
              }
              OSS client =
                  OssFileIO.newClient(options, 0, 1, Math.min(leftMillis, Integer.MAX_VALUE));
              try {
                client.putObject(
                    OssPublisher.putRequest(
                        key, content, content.length, md5, writeId, forbidOverwrite));
              } finally {
                client.shutdown();
              }
            });
  }
}
