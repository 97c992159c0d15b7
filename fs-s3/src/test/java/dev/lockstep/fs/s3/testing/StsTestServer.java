package dev.lockstep.fs.s3.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An STS-protocol server on a free port of 127.0.0.1 that answers the AssumeRole query API (AWS's
 * {@code POST /} form {@code Action=AssumeRole&Version=2011-06-15&RoleArn=...}) as STS does, for
 * the real SDK's {@code StsAssumeRoleCredentialsProvider}:
 *
 * <ul>
 *   <li>the caller must sign with the access key {@code callerKey} (the {@code Credential=} of its
 *       SigV4 {@code Authorization} header; the signature itself is not recomputed) and ask for
 *       {@code roleArn}, with {@code externalId} when one is set; otherwise {@code 403
 *       AccessDenied} in STS's error document;
 *   <li>a granted request gets {@code issued}'s key, secret and session token, expiring after
 *       {@code lifetime} (whatever duration was asked for: a short lifetime makes the SDK renew).
 * </ul>
 *
 * <p>Every request's form parameters and caller key are recorded ({@link #requests()}). In fs-s3's
 * test-jar (this package) beside {@link S3ProxyServer}, for the Paimon adapter's tests too.
 */
public final class StsTestServer implements AutoCloseable {

  /** One AssumeRole request as received: its form parameters and the caller's access key. */
  public record Request(String callerKey, Map<String, String> form) {}

  private static final Pattern CREDENTIAL = Pattern.compile("Credential=([^/,\\s]+)/");

  private final HttpServer server;
  private final String callerKey;
  private final String roleArn;
  private final String externalId;
  private final String[] issued;
  private final Duration lifetime;
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  /**
   * @param issued the temporary access key, secret key and session token handed out
   */
  public StsTestServer(
      String callerKey, String roleArn, String externalId, String[] issued, Duration lifetime)
      throws IOException {
    this.callerKey = callerKey;
    this.roleArn = roleArn;
    this.externalId = externalId;
    this.issued = issued.clone();
    this.lifetime = lifetime;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  public List<Request> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      Map<String, String> form = new LinkedHashMap<>();
      if (exchange.getRequestURI().getRawQuery() != null) {
        parse(exchange.getRequestURI().getRawQuery(), form);
      }
      parse(body, form);
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      Matcher credential = CREDENTIAL.matcher(authorization == null ? "" : authorization);
      String caller = credential.find() ? credential.group(1) : null;
      requests.add(new Request(caller, form));
      if (!"POST".equals(exchange.getRequestMethod()) || !"AssumeRole".equals(form.get("Action"))) {
        error(
            exchange,
            400,
            "InvalidAction",
            "Could not find operation "
                + form.get("Action")
                + " for version "
                + form.get("Version"));
      } else if (!callerKey.equals(caller)) {
        error(
            exchange,
            403,
            "InvalidClientTokenId",
            "The security token included in the request is invalid.");
      } else if (!roleArn.equals(form.get("RoleArn"))
          || (externalId != null && !externalId.equals(form.get("ExternalId")))) {
        error(
            exchange,
            403,
            "AccessDenied",
            "User: arn:aws:iam::123456789012:user/"
                + caller
                + " is not authorized to perform: sts:AssumeRole on resource: "
                + form.get("RoleArn"));
      } else {
        String session = form.getOrDefault("RoleSessionName", "");
        String role = roleArn.substring(roleArn.indexOf(":role/") + 6);
        send(
            exchange,
            200,
            "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
                + "<AssumeRoleResult><Credentials>"
                + "<AccessKeyId>"
                + issued[0]
                + "</AccessKeyId>"
                + "<SecretAccessKey>"
                + issued[1]
                + "</SecretAccessKey>"
                + "<SessionToken>"
                + issued[2]
                + "</SessionToken>"
                + "<Expiration>"
                + Instant.now().plus(lifetime).truncatedTo(ChronoUnit.SECONDS)
                + "</Expiration></Credentials>"
                + "<AssumedRoleUser><AssumedRoleId>AROATESTROLEID:"
                + session
                + "</AssumedRoleId>"
                + "<Arn>arn:aws:sts::123456789012:assumed-role/"
                + role
                + "/"
                + session
                + "</Arn>"
                + "</AssumedRoleUser></AssumeRoleResult>"
                + "<ResponseMetadata><RequestId>"
                + UUID.randomUUID()
                + "</RequestId>"
                + "</ResponseMetadata></AssumeRoleResponse>");
      }
    }
  }

  private static void parse(String encoded, Map<String, String> into) {
    for (String pair : encoded.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      into.put(key, value);
    }
  }

  private static void error(HttpExchange exchange, int status, String code, String message)
      throws IOException {
    send(
        exchange,
        status,
        "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
            + "<Error><Type>Sender</Type><Code>"
            + code
            + "</Code><Message>"
            + message
            + "</Message></Error><RequestId>"
            + UUID.randomUUID()
            + "</RequestId></ErrorResponse>");
  }

  private static void send(HttpExchange exchange, int status, String xml) throws IOException {
    byte[] bytes = xml.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/xml");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
