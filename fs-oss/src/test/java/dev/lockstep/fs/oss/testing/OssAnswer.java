package dev.lockstep.fs.oss.testing;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** One successful answer: status, headers and body (empty for HEAD and 204). */
final class OssAnswer {

  final int status;
  final Map<String, String> headers = new LinkedHashMap<>();
  final byte[] body;

  OssAnswer(int status, byte[] body) {
    this.status = status;
    this.body = body;
  }

  static OssAnswer empty(int status) {
    return new OssAnswer(status, new byte[0]);
  }

  static OssAnswer xml(String xml) {
    OssAnswer answer =
        new OssAnswer(
            200,
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + xml)
                .getBytes(StandardCharsets.UTF_8));
    answer.headers.put("Content-Type", "application/xml");
    return answer;
  }

  OssAnswer header(String name, String value) {
    headers.put(name, value);
    return this;
  }
}
