package dev.lockstep.fs.oss.testing;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The HTTP/1.1 wire format, just enough for the OSS SDK's Apache HttpClient: a request line,
 * headers, a body by {@code Content-Length} or chunked; answers with exact header names.
 *
 * <p>Why not {@code com.sun.net.httpserver}: it rewrites response header names to {@code
 * X-oss-meta-...}, and SDK 3.18.1 finds user metadata with a case-sensitive {@code
 * indexOf("x-oss-meta-")}, so metadata would silently vanish. OSS itself answers lower-case {@code
 * x-oss-*} names; so does this server.
 */
final class HttpWire {

  /** A request as read from the socket; header names lower-cased. */
  record RawRequest(String method, String target, Map<String, List<String>> headers, byte[] body) {
    String header(String name) {
      List<String> values = headers.get(name);
      return values == null || values.isEmpty() ? null : values.get(0);
    }
  }

  private static final int MAX_LINE = 64 * 1024;

  private HttpWire() {}

  /** Reads one request, or returns {@code null} when the client closed the connection. */
  static RawRequest read(InputStream in) throws IOException {
    String requestLine = readLine(in);
    while (requestLine != null && requestLine.isEmpty()) {
      requestLine = readLine(in);
    }
    if (requestLine == null) {
      return null;
    }
    String[] parts = requestLine.split(" ");
    if (parts.length != 3) {
      throw new IOException("Malformed request line: " + requestLine);
    }
    Map<String, List<String>> headers = new TreeMap<>();
    for (String line = readLine(in); line != null && !line.isEmpty(); line = readLine(in)) {
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new IOException("Malformed header: " + line);
      }
      headers
          .computeIfAbsent(
              line.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
          .add(line.substring(colon + 1).trim());
    }
    byte[] body;
    List<String> encoding = headers.get("transfer-encoding");
    if (encoding != null && encoding.get(0).equalsIgnoreCase("chunked")) {
      body = readChunked(in);
    } else if (headers.containsKey("content-length")) {
      int length = Integer.parseInt(headers.get("content-length").get(0));
      body = in.readNBytes(length);
      if (body.length != length) {
        throw new EOFException("Body ended after " + body.length + " of " + length + " bytes");
      }
    } else {
      body = new byte[0];
    }
    return new RawRequest(parts[0], parts[1], headers, body);
  }

  private static byte[] readChunked(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine(in);
      if (sizeLine == null) {
        throw new EOFException("Chunked body ended early");
      }
      int semicolon = sizeLine.indexOf(';');
      int size =
          Integer.parseInt(
              (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
      if (size == 0) {
        for (String trailer = readLine(in);
            trailer != null && !trailer.isEmpty();
            trailer = readLine(in)) {
          // trailers are ignored
        }
        return out.toByteArray();
      }
      byte[] chunk = in.readNBytes(size);
      if (chunk.length != size) {
        throw new EOFException("Chunk ended early");
      }
      out.writeBytes(chunk);
      readLine(in);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(128);
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        byte[] bytes = line.toByteArray();
        int length =
            bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
      }
      if (line.size() > MAX_LINE) {
        throw new IOException("Line too long");
      }
      line.write(c);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
  }

  /**
   * Writes an answer. {@code Content-Length} is the body's length, or for HEAD the length the
   * caller set; a HEAD answer has no body.
   */
  static void write(
      OutputStream out, int status, Map<String, String> headers, byte[] body, boolean head)
      throws IOException {
    StringBuilder s = new StringBuilder(256);
    s.append("HTTP/1.1 ").append(status).append(' ').append(reason(status)).append("\r\n");
    s.append("Date: ").append(OssApi.RFC822.format(Instant.now())).append("\r\n");
    boolean lengthSet = false;
    for (Map.Entry<String, String> h : headers.entrySet()) {
      if (h.getValue() == null) {
        continue;
      }
      if (h.getKey().equalsIgnoreCase("Content-Length")) {
        if (!head) {
          continue;
        }
        lengthSet = true;
      }
      s.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
    }
    if (!head || !lengthSet) {
      s.append("Content-Length: ").append(head ? 0 : body.length).append("\r\n");
    }
    s.append("\r\n");
    out.write(s.toString().getBytes(StandardCharsets.UTF_8));
    if (!head) {
      out.write(body);
    }
    out.flush();
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 204 -> "No Content";
      case 206 -> "Partial Content";
      case 400 -> "Bad Request";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 409 -> "Conflict";
      case 412 -> "Precondition Failed";
      case 416 -> "Requested Range Not Satisfiable";
      case 500 -> "Internal Server Error";
      case 501 -> "Not Implemented";
      default -> "Status";
    };
  }
}
