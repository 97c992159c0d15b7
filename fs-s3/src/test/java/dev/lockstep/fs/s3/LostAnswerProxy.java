package dev.lockstep.fs.s3;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An HTTP/1.1 proxy between the store and s3proxy that loses answers on purpose. It relays requests
 * and responses unchanged, except for the next requests whose head (request line and headers)
 * matches an armed predicate:
 *
 * <ul>
 *   <li>{@link Fault#DROP_RESPONSE}: the request reaches the server and is processed; when the
 *       final response arrives, the proxy closes the client's connection instead of relaying it.
 *       The write landed; its answer is lost.
 *   <li>{@link Fault#DROP_REQUEST}: the proxy runs the hook, then closes the client's connection
 *       without forwarding anything. The write never landed; the client cannot tell.
 *   <li>{@link Fault#STRIP_CONDITION}: forwards the request without its {@code If-None-Match}
 *       header, as a store that ignores the header would treat it (only against a server without
 *       authentication, since the header is signed).
 *   <li>{@link Fault#ANSWER_CONDITIONAL_CONFLICT}: answers {@code 409 ConditionalRequestConflict}
 *       itself, as AWS does while another conditional write to the key is in flight; the request
 *       never reaches the server.
 * </ul>
 *
 * <p>Interim {@code 100 Continue} responses are relayed, so {@code Expect: 100-continue} works.
 */
final class LostAnswerProxy implements AutoCloseable {

  enum Fault {
    DROP_RESPONSE,
    DROP_REQUEST,
    STRIP_CONDITION,
    ANSWER_CONDITIONAL_CONFLICT
  }

  private record Armed(Fault fault, Predicate<String> matches, Runnable hook) {}

  /** What the response side must do with the answer to one request. */
  private record Pending(String method, Fault fault) {}

  private final ServerSocket listener;
  private final int targetPort;
  private final AtomicInteger remaining = new AtomicInteger();
  private final AtomicInteger triggered = new AtomicInteger();
  private final java.util.List<String> requests = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final java.util.List<String> signers = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile boolean stripSessionTokens;
  private volatile Armed armed;

  LostAnswerProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "lost-answer-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort());
  }

  /** Applies {@code fault} to the next {@code count} requests whose head matches. */
  void arm(Fault fault, Predicate<String> matches, int count, Runnable hook) {
    armed = new Armed(fault, matches, hook);
    remaining.set(count);
  }

  /**
   * Every request relayed or faulted so far, as {@code METHOD /path[?query]} followed by {@code
   * Range: ...} when it had one.
   */
  java.util.List<String> requests() {
    return java.util.List.copyOf(requests);
  }

  /**
   * The access key ({@code Credential=} of the SigV4 {@code Authorization} header) and the {@code
   * x-amz-security-token} ({@code -} when none) of every request so far, as {@code key token}.
   */
  java.util.List<String> signers() {
    return java.util.List.copyOf(signers);
  }

  /**
   * From now on forwards requests without their {@code x-amz-security-token} header, which s3proxy
   * 4.0.0 refuses (501: it implements no temporary credentials); only against a server without
   * authentication, since the header is signed. {@link #signers()} still records it.
   */
  void stripSessionTokens() {
    stripSessionTokens = true;
  }

  /** How many requests a fault was applied to. */
  int triggered() {
    return triggered.get();
  }

  /** A conditional write ({@code If-None-Match}) to a key containing {@code keyPart}. */
  static Predicate<String> conditionalWriteTo(String keyPart) {
    return head ->
        head.startsWith("PUT ") || head.startsWith("POST ")
            ? head.split(" ", 3)[1].contains(keyPart)
                && head.toLowerCase(Locale.ROOT).contains("\nif-none-match:")
            : false;
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
        BlockingQueue<Pending> pending = new ArrayBlockingQueue<>(64);
        start(() -> relayRequests(client, server, pending));
        start(() -> relayResponses(client, server, pending));
      } catch (IOException e) {
        if (!listener.isClosed()) {
          e.printStackTrace();
        }
      }
    }
  }

  private static void start(Runnable task) {
    Thread thread = new Thread(task, "lost-answer-proxy-relay");
    thread.setDaemon(true);
    thread.start();
  }

  private void relayRequests(Socket client, Socket server, BlockingQueue<Pending> pending) {
    try (client;
        server) {
      InputStream in = client.getInputStream();
      OutputStream out = server.getOutputStream();
      while (true) {
        byte[] head = readHead(in);
        if (head == null) {
          return;
        }
        String text = new String(head, StandardCharsets.ISO_8859_1);
        java.util.regex.Matcher range =
            java.util.regex.Pattern.compile("(?im)^range:\\s*([^\r\n]*)").matcher(text);
        String line = text.substring(0, text.indexOf(' ', text.indexOf(' ') + 1));
        requests.add(range.find() ? line + " Range: " + range.group(1) : line);
        java.util.regex.Matcher key =
            java.util.regex.Pattern.compile("(?im)^authorization:[^\r\n]*Credential=([^/,\r\n]+)/")
                .matcher(text);
        java.util.regex.Matcher token =
            java.util.regex.Pattern.compile("(?im)^x-amz-security-token:\\s*([^\r\n]*)")
                .matcher(text);
        signers.add(
            (key.find() ? key.group(1) : "-") + " " + (token.find() ? token.group(1) : "-"));
        if (stripSessionTokens) {
          text = text.replaceAll("(?im)^x-amz-security-token:[^\r\n]*\r\n", "");
          head = text.getBytes(StandardCharsets.ISO_8859_1);
        }
        Fault fault = decide(text);
        if (fault == Fault.DROP_REQUEST) {
          return;
        }
        if (fault == Fault.ANSWER_CONDITIONAL_CONFLICT) {
          byte[] body =
              ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
                      + "ConditionalRequestConflict</Code><Message>A conflicting conditional operation is"
                      + " currently in progress against this resource.</Message></Error>")
                  .getBytes(StandardCharsets.UTF_8);
          OutputStream toClient = client.getOutputStream();
          toClient.write(
              ("HTTP/1.1 409 Conflict\r\nContent-Type: application/xml\r\n"
                      + "Content-Length: "
                      + body.length
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.ISO_8859_1));
          toClient.write(body);
          toClient.flush();
          return;
        }
        if (fault == Fault.STRIP_CONDITION) {
          text = text.replaceAll("(?im)^if-none-match:[^\r\n]*\r\n", "");
          head = text.getBytes(StandardCharsets.ISO_8859_1);
          fault = null;
        }
        pending.put(new Pending(text.substring(0, text.indexOf(' ')), fault));
        out.write(head);
        out.flush();
        relayBody(text, in, out);
      }
    } catch (IOException | InterruptedException e) {
      // A closed socket ends the relay.
    }
  }

  private Fault decide(String head) {
    Armed current = armed;
    if (current == null || !current.matches().test(head)) {
      return null;
    }
    if (remaining.getAndUpdate(n -> Math.max(0, n - 1)) <= 0) {
      return null;
    }
    triggered.incrementAndGet();
    if (current.hook() != null) {
      current.hook().run();
    }
    return current.fault();
  }

  private void relayResponses(Socket client, Socket server, BlockingQueue<Pending> pending) {
    try (client;
        server) {
      InputStream in = server.getInputStream();
      OutputStream out = client.getOutputStream();
      while (true) {
        byte[] head = readHead(in);
        if (head == null) {
          return;
        }
        String text = new String(head, StandardCharsets.ISO_8859_1);
        int status = Integer.parseInt(text.split(" ", 3)[1]);
        if (status >= 100 && status < 200) {
          out.write(head);
          out.flush();
          continue;
        }
        Pending request = pending.take();
        if (request.fault() == Fault.DROP_RESPONSE) {
          return;
        }
        out.write(head);
        if (!request.method().equals("HEAD") && status != 204 && status != 304) {
          relayBody(text, in, out);
        }
        out.flush();
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      // A closed socket ends the relay.
    }
  }

  /** The bytes up to and including the blank line, or null at a clean end of stream. */
  private static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        if (head.size() == 0) {
          return null;
        }
        throw new EOFException("connection closed inside a message head");
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toByteArray();
  }

  private static void relayBody(String head, InputStream in, OutputStream out) throws IOException {
    String lower = head.toLowerCase(Locale.ROOT);
    if (lower.contains("\ntransfer-encoding: chunked")) {
      while (true) {
        String sizeLine = readLine(in);
        out.write((sizeLine + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        int size = Integer.parseInt(sizeLine.split(";", 2)[0].trim(), 16);
        if (size == 0) {
          String trailer;
          do {
            trailer = readLine(in);
            out.write((trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
          } while (!trailer.isEmpty());
          return;
        }
        copy(in, out, size + 2L);
      }
    }
    int at = lower.indexOf("\ncontent-length:");
    if (at >= 0) {
      int end = lower.indexOf('\r', at);
      copy(in, out, Long.parseLong(lower.substring(at + "\ncontent-length:".length(), end).trim()));
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new EOFException("connection closed inside a chunked body");
      }
      if (b != '\r') {
        line.append((char) b);
      }
    }
    return line.toString();
  }

  private static void copy(InputStream in, OutputStream out, long count) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    while (count > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, count));
      if (n < 0) {
        throw new EOFException("connection closed inside a body");
      }
      out.write(buffer, 0, n);
      count -= n;
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
