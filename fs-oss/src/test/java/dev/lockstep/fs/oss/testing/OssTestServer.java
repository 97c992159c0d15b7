package dev.lockstep.fs.oss.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An in-process server that speaks the Aliyun OSS HTTP API as the OSS Java SDK 3.18.x sends it, for
 * tests: real sockets, real SDK, no mocks. Objects live in memory.
 *
 * <p>Served (each follows the OSS API reference entry of the same name, see {@link OssApi}):
 * PutBucket, DeleteBucket, PutObject, GetObject (Range), HeadObject, GetObjectMeta, DeleteObject,
 * DeleteMultipleObjects, ListObjects, ListObjectsV2, CopyObject, InitiateMultipartUpload,
 * UploadPart, CompleteMultipartUpload, AbortMultipartUpload. Anything else answers 501 {@code
 * NotImplemented}.
 *
 * <ol>
 *   <li>Addressing: path style ({@code http://127.0.0.1:port/bucket/key}), which the SDK uses for
 *       an IP or {@code localhost} endpoint ({@code OSSClient.setEndpoint} turns on
 *       second-level-domain mode), and virtual-hosted style ({@code Host: bucket.host}) when the
 *       host's first label is a bucket of this server.
 *   <li>Authentication: the V1 signature of the {@code Authorization} header ({@link
 *       OssSignatureV1}), checked against the configured key: an unknown id answers 403 {@code
 *       InvalidAccessKeyId}, a wrong signature 403 {@code SignatureDoesNotMatch} (with the server's
 *       StringToSign, as OSS does), no header 403 {@code AccessDenied}, a {@code Date} more than 15
 *       minutes off 403 {@code RequestTimeTooSkewed} ("Include a V1 signature in the Authorization
 *       header"). A configured security token must come as {@code x-oss-security-token}. V4
 *       signatures are refused with 400 {@code InvalidArgument}.
 *   <li>Integrity: a {@code Content-MD5} header that does not match the body answers 400 {@code
 *       InvalidDigest} ("PutObject", "Common HTTP headers"); answers carry {@code
 *       x-oss-hash-crc64ecma}, which the SDK checks.
 *   <li>Errors: the OSS error XML body ("Error responses"); HEAD errors carry it base64-encoded in
 *       {@code x-oss-err}, since a HEAD answer has no body.
 *   <li>{@code x-oss-forbid-overwrite: true} on PutObject, CopyObject, InitiateMultipartUpload and
 *       CompleteMultipartUpload answers 409 {@code FileAlreadyExists} when the object exists; the
 *       check and the put are one step under a per-key monitor.
 * </ol>
 *
 * <p>Faults can be injected per operation ({@link #injectFault}) to reproduce lost answers, and
 * {@link #throttleRequests} reads requests as slowly as a slow network delivers them. The HTTP
 * layer is {@link HttpWire} over plain sockets, one thread per connection, keep-alive. A request
 * whose body ends short (the client closed or reset the connection) is never applied.
 */
public final class OssTestServer implements AutoCloseable {

  /** A fault the server injects into matching requests. */
  public enum Fault {
    /** Apply the request, then close the connection without answering: the answer is lost. */
    LOSE_ANSWER_AFTER_APPLYING,
    /** Answer 500 {@code InternalError} without applying the request. */
    INTERNAL_ERROR_BEFORE_APPLYING,
    /** Apply the request, then answer 500 {@code InternalError}. */
    INTERNAL_ERROR_AFTER_APPLYING
  }

  public static final String DEFAULT_ACCESS_KEY_ID = "LTAI-test-key-id";
  public static final String DEFAULT_ACCESS_KEY_SECRET = "test-secret-do-not-log";
  private static final Duration MAX_SKEW = Duration.ofMinutes(15);

  private record FaultRule(
      Fault fault, String operation, Predicate<String> key, AtomicInteger remaining) {}

  private final ServerSocket socket;
  private final ExecutorService executor;
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
  private final OssApi api = new OssApi();
  private final Map<String, String> secrets = new ConcurrentHashMap<>();
  private final Map<String, String> tokens = new ConcurrentHashMap<>();
  private final List<FaultRule> faults = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
  private final AtomicInteger received = new AtomicInteger();
  private final AtomicInteger inProgress = new AtomicInteger();
  private final String hostId;
  private volatile long requestBytesPerSecond;
  private volatile boolean closed;

  private OssTestServer(ServerSocket socket, ExecutorService executor) {
    this.socket = socket;
    this.executor = executor;
    this.hostId = "127.0.0.1:" + socket.getLocalPort();
  }

  /** Starts a server on a free port of 127.0.0.1 with the default key and no buckets. */
  public static OssTestServer start() throws IOException {
    ServerSocket socket = new ServerSocket(0, 256, InetAddress.getLoopbackAddress());
    AtomicInteger threads = new AtomicInteger();
    ExecutorService executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "oss-test-server-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    OssTestServer server = new OssTestServer(socket, executor);
    server.addCredentials(DEFAULT_ACCESS_KEY_ID, DEFAULT_ACCESS_KEY_SECRET);
    executor.execute(server::acceptLoop);
    return server;
  }

  /** {@code http://127.0.0.1:<port>}: an IP endpoint, so the SDK addresses buckets path-style. */
  public String endpoint() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  public String accessKeyId() {
    return DEFAULT_ACCESS_KEY_ID;
  }

  public String accessKeySecret() {
    return DEFAULT_ACCESS_KEY_SECRET;
  }

  /** Accepts requests signed with this key pair. */
  public OssTestServer addCredentials(String accessKeyId, String accessKeySecret) {
    secrets.put(accessKeyId, accessKeySecret);
    return this;
  }

  /** Accepts this key pair only with {@code x-oss-security-token: token} (an STS credential). */
  public OssTestServer addTemporaryCredentials(String accessKeyId, String secret, String token) {
    secrets.put(accessKeyId, secret);
    tokens.put(accessKeyId, token);
    return this;
  }

  /** Creates a bucket (as PutBucket would); a no-op when it exists. */
  public OssTestServer createBucket(String bucket) {
    api.buckets.putIfAbsent(bucket, new OssBucket(bucket));
    return this;
  }

  /** The bytes stored at {@code key}, or {@code null}: a direct look, bypassing the protocol. */
  public byte[] object(String bucket, String key) {
    OssBucket b = api.buckets.get(bucket);
    OssBucket.StoredObject o = b == null ? null : b.objects.get(key);
    return o == null ? null : o.content().clone();
  }

  /** Every key in the bucket, in order. */
  public List<String> keys(String bucket) {
    OssBucket b = api.buckets.get(bucket);
    return b == null ? List.of() : new ArrayList<>(b.objects.keySet());
  }

  /** The number of multipart uploads begun and neither completed nor aborted. */
  public int uploadsInProgress(String bucket) {
    OssBucket b = api.buckets.get(bucket);
    return b == null ? 0 : b.uploads.size();
  }

  /** How many requests of {@code operation} (an OSS API name) the server has received. */
  public int requestCount(String operation) {
    AtomicInteger n = counts.get(operation);
    return n == null ? 0 : n.get();
  }

  /**
   * How many requests have begun to arrive: every request whose first byte came, including those
   * whose body then ended short and those the server refused.
   */
  public int requestsReceived() {
    return received.get();
  }

  /**
   * Reads requests (headers and bodies) at about {@code bytesPerSecond} at most, as a slow network
   * delivers them, so that a large upload is still being sent when a client gives up on it; {@code
   * 0} reads at full speed again. Applies at once, to open connections too.
   */
  public OssTestServer throttleRequests(long bytesPerSecond) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("bytesPerSecond must be 0 (off) or positive");
    }
    requestBytesPerSecond = bytesPerSecond;
    return this;
  }

  /**
   * Waits until no request is in progress: a request counts from its first byte until its answer is
   * written or its connection ends (a truncated body, a reset, a lost answer).
   *
   * @return whether that happened within {@code timeout}
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (inProgress.get() > 0) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /**
   * Injects {@code fault} into the next {@code times} requests of {@code operation} (an OSS API
   * name such as {@code PutObject}) whose key matches.
   */
  public void injectFault(Fault fault, String operation, Predicate<String> key, int times) {
    faults.add(new FaultRule(fault, operation, key, new AtomicInteger(times)));
  }

  /** Stops the server at once and its threads. */
  @Override
  public void close() {
    closed = true;
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket connection : connections) {
      try {
        connection.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    executor.shutdownNow();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket connection = socket.accept();
        connection.setTcpNoDelay(true);
        connections.add(connection);
        executor.execute(() -> serve(connection));
      } catch (IOException e) {
        if (!closed) {
          throw new IllegalStateException("The OSS test server cannot accept connections", e);
        }
      } catch (java.util.concurrent.RejectedExecutionException e) {
        return; // closing
      }
    }
  }

  /** Serves one keep-alive connection until the client closes it or an answer is to be lost. */
  private void serve(Socket connection) {
    try (connection) {
      InputStream in =
          new BufferedInputStream(
              new ThrottledInput(connection.getInputStream(), () -> requestBytesPerSecond));
      OutputStream out = new BufferedOutputStream(connection.getOutputStream());
      while (!closed) {
        in.mark(1);
        if (in.read() < 0) {
          return; // the client closed an idle keep-alive connection
        }
        in.reset();
        received.incrementAndGet();
        inProgress.incrementAndGet();
        try {
          HttpWire.RawRequest raw = HttpWire.read(in);
          if (raw == null) {
            return;
          }
          boolean head = raw.method().equals("HEAD");
          OssAnswer answer = handle(raw);
          if (answer == null) {
            return; // no status line was sent: closing the connection loses the answer
          }
          HttpWire.write(out, answer.status, answer.headers, answer.body, head);
          if ("close".equalsIgnoreCase(raw.header("connection"))) {
            return;
          }
        } finally {
          inProgress.decrementAndGet();
        }
      }
    } catch (IOException e) {
      // the client went away
    } finally {
      connections.remove(connection);
    }
  }

  /** Answers one request, or returns {@code null} when the answer is to be lost. */
  private OssAnswer handle(HttpWire.RawRequest raw) {
    String requestId = requestId();
    boolean head = raw.method().equals("HEAD");
    OssAnswer answer;
    try {
      OssRequest request = parse(raw);
      counts.computeIfAbsent(request.operation(), k -> new AtomicInteger()).incrementAndGet();
      authenticate(request);
      verifyContentMd5(request);
      Fault fault = takeFault(request);
      if (fault == Fault.INTERNAL_ERROR_BEFORE_APPLYING) {
        throw internalError();
      }
      answer = api.execute(request);
      if (fault == Fault.LOSE_ANSWER_AFTER_APPLYING) {
        return null;
      }
      if (fault == Fault.INTERNAL_ERROR_AFTER_APPLYING) {
        throw internalError();
      }
    } catch (OssError e) {
      answer = errorAnswer(e, requestId, head);
    } catch (RuntimeException e) {
      answer =
          errorAnswer(
              new OssError(500, "InternalError", "0000-00000000", "The test server failed: " + e),
              requestId,
              head);
    }
    answer.header("x-oss-request-id", requestId).header("Server", "AliyunOSS");
    return answer;
  }

  private static OssError internalError() {
    return new OssError(
        500,
        "InternalError",
        "0000-00000000",
        "We encountered an internal error. Please try again (injected fault).");
  }

  private Fault takeFault(OssRequest request) {
    for (FaultRule rule : faults) {
      if (rule.operation().equals(request.operation())
          && rule.key().test(request.key() == null ? "" : request.key())
          && rule.remaining().getAndDecrement() > 0) {
        return rule.fault();
      }
    }
    return null;
  }

  private OssRequest parse(HttpWire.RawRequest raw) {
    Map<String, List<String>> headers = raw.headers();
    Map<String, String> params = new LinkedHashMap<>();
    String target = raw.target();
    int q = target.indexOf('?');
    String rawPath = q < 0 ? target : target.substring(0, q);
    String query = q < 0 ? null : target.substring(q + 1);
    if (query != null && !query.isEmpty()) {
      for (String pair : query.split("&")) {
        int eq = pair.indexOf('=');
        if (eq < 0) {
          params.put(percentDecode(pair), null);
        } else {
          params.put(percentDecode(pair.substring(0, eq)), percentDecode(pair.substring(eq + 1)));
        }
      }
    }
    String bucket;
    String key;
    String hostBucket = virtualHostBucket(headers.get("host"));
    if (hostBucket != null) {
      bucket = hostBucket;
      key = rawPath.length() <= 1 ? null : percentDecode(rawPath.substring(1));
    } else if (rawPath.length() <= 1) {
      bucket = null;
      key = null;
    } else {
      int slash = rawPath.indexOf('/', 1);
      bucket = percentDecode(slash < 0 ? rawPath.substring(1) : rawPath.substring(1, slash));
      key =
          slash < 0 || slash == rawPath.length() - 1
              ? null
              : percentDecode(rawPath.substring(slash + 1));
    }
    return new OssRequest(
        OssApi.operationOf(raw.method(), bucket, key, params, headers),
        raw.method(),
        bucket,
        key,
        params,
        headers,
        raw.body());
  }

  private String virtualHostBucket(List<String> host) {
    if (host == null || host.isEmpty()) {
      return null;
    }
    String name = host.get(0).replaceFirst(":\\d+$", "");
    int dot = name.indexOf('.');
    if (dot <= 0 || Character.isDigit(name.charAt(name.length() - 1))) {
      return null;
    }
    String label = name.substring(0, dot);
    return api.buckets.containsKey(label) ? label : null;
  }

  /** "Include a V1 signature in the Authorization header": see the class javadoc. */
  private void authenticate(OssRequest request) throws OssError {
    String authorization = request.header("authorization");
    if (authorization == null) {
      throw new OssError(
          403,
          "AccessDenied",
          "0003-00000001",
          "Anonymous access is forbidden for this operation.");
    }
    if (authorization.startsWith("OSS4-HMAC-SHA256")) {
      throw OssError.invalidArgument(
          "The OSS test server checks V1 signatures (the SDK default);" + " V4 is not served.");
    }
    if (!authorization.startsWith("OSS ") || authorization.indexOf(':') < 0) {
      throw OssError.invalidArgument("Authorization header is invalid: " + authorization);
    }
    String credential = authorization.substring(4);
    int colon = credential.lastIndexOf(':');
    String accessKeyId = credential.substring(0, colon).trim();
    String signature = credential.substring(colon + 1).trim();
    String secret = secrets.get(accessKeyId);
    if (secret == null) {
      throw new OssError(
          403,
          "InvalidAccessKeyId",
          "0002-00000902",
          "The OSS Access Key Id you provided does not exist in our records.",
          OssXml.element("OSSAccessKeyId", accessKeyId));
    }
    String token = tokens.get(accessKeyId);
    if (token != null && !token.equals(request.header("x-oss-security-token"))) {
      throw new OssError(
          403,
          "InvalidAccessKeyId",
          "0002-00000903",
          "The security token you provided is invalid.",
          OssXml.element("OSSAccessKeyId", accessKeyId));
    }
    checkDate(request.header("date"));
    String stringToSign =
        OssSignatureV1.stringToSign(
            request.method(), request.headers(), request.bucket(), request.key(), request.params());
    if (!OssSignatureV1.matches(OssSignatureV1.sign(secret, stringToSign), signature)) {
      throw new OssError(
          403,
          "SignatureDoesNotMatch",
          "0002-00000040",
          "The request signature we calculated does not match the signature you provided. Check"
              + " your key and signing method.",
          OssXml.element("OSSAccessKeyId", accessKeyId)
              + OssXml.element("StringToSign", stringToSign));
    }
  }

  private static void checkDate(String date) throws OssError {
    if (date == null) {
      throw new OssError(403, "AccessDenied", "0002-00000001", "The Date header is required.");
    }
    Instant sent;
    try {
      sent = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw new OssError(403, "AccessDenied", "0002-00000002", "Invalid Date header: " + date);
    }
    if (Duration.between(sent, Instant.now()).abs().compareTo(MAX_SKEW) > 0) {
      throw new OssError(
          403,
          "RequestTimeTooSkewed",
          "0002-00000504",
          "The difference between the request time and the current time is too large.");
    }
  }

  private static void verifyContentMd5(OssRequest request) throws OssError {
    String given = request.header("content-md5");
    if (given == null) {
      return;
    }
    String actual = Base64.getEncoder().encodeToString(OssBucket.md5(request.body()));
    if (!actual.equals(given.trim())) {
      throw new OssError(
          400, "InvalidDigest", "0016-00000002", "The Content-MD5 you specified is not valid.");
    }
  }

  private OssAnswer errorAnswer(OssError error, String requestId, boolean head) {
    byte[] xml = error.toXml(requestId, hostId).getBytes(StandardCharsets.UTF_8);
    OssAnswer answer =
        new OssAnswer(error.status, head ? new byte[0] : xml).header("x-oss-ec", error.ec);
    if (head) {
      answer.header("x-oss-err", Base64.getEncoder().encodeToString(xml));
    } else {
      answer.header("Content-Type", "application/xml");
    }
    return answer;
  }

  private static String requestId() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return String.format("%016X%08X", random.nextLong(), random.nextInt());
  }

  /** Decodes {@code %XX} escapes as UTF-8; a {@code +} stays a plus (OSS encodes spaces as %20). */
  static String percentDecode(String s) {
    if (s == null || s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
    int i = 0;
    while (i < s.length()) {
      if (s.charAt(i) == '%' && i + 3 <= s.length()) {
        out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 3;
      } else {
        int end = i + Character.charCount(s.codePointAt(i));
        out.writeBytes(s.substring(i, end).getBytes(StandardCharsets.UTF_8));
        i = end;
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
