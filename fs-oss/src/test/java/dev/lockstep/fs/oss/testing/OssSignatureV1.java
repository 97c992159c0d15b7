package dev.lockstep.fs.oss.testing;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The OSS V1 request signature, as the OSS API reference describes it in "Include a V1 signature in
 * the Authorization header" (the default of the Java SDK 3.18.x: {@code
 * ClientConfiguration.DEFAULT_SIGNATURE_VERSION} is V1 unless V4 is configured):
 *
 * <pre>
 * Authorization = "OSS " + AccessKeyId + ":" + Signature
 * Signature = base64(hmac-sha1(AccessKeySecret,
 *     VERB + "\n" + Content-MD5 + "\n" + Content-Type + "\n" + Date + "\n"
 *     + CanonicalizedOSSHeaders + CanonicalizedResource))
 * </pre>
 *
 * <ol>
 *   <li>CanonicalizedOSSHeaders: every header whose lower-cased name starts with {@code x-oss-},
 *       sorted by name, one {@code name:value\n} each; values trimmed, repeated headers joined by
 *       commas.
 *   <li>CanonicalizedResource: {@code /bucket/key} with the key <em>not</em> URL-encoded, {@code
 *       /bucket/} for a bucket request, {@code /} for the service; then the sub-resources among the
 *       query parameters (list below), sorted, {@code ?a&b=v}, values decoded. Ordinary parameters
 *       such as {@code prefix}, {@code max-keys} or {@code list-type} are not signed.
 * </ol>
 */
final class OssSignatureV1 {

  /** "Include a V1 signature in the Authorization header": the sub-resources that are signed. */
  static final Set<String> SUBRESOURCES =
      Set.of(
          "acl",
          "uploads",
          "location",
          "cors",
          "logging",
          "website",
          "referer",
          "lifecycle",
          "delete",
          "append",
          "tagging",
          "objectMeta",
          "uploadId",
          "partNumber",
          "security-token",
          "position",
          "img",
          "style",
          "styleName",
          "replication",
          "replicationProgress",
          "replicationLocation",
          "cname",
          "bucketInfo",
          "comp",
          "qos",
          "live",
          "status",
          "vod",
          "startTime",
          "endTime",
          "symlink",
          "x-oss-process",
          "response-content-type",
          "response-content-language",
          "response-expires",
          "response-cache-control",
          "response-content-disposition",
          "response-content-encoding",
          "restore",
          "callback",
          "callback-var",
          "qosInfo",
          "policy",
          "stat",
          "encryption",
          "versions",
          "versioning",
          "versionId",
          "requestPayment",
          "x-oss-request-payer",
          "sequential",
          "inventory",
          "inventoryId",
          "continuation-token",
          "asyncFetch",
          "worm",
          "wormId",
          "wormExtend",
          "x-oss-traffic-limit",
          "transferAcceleration",
          "regionList",
          "metaQuery",
          "resourceGroup");

  private OssSignatureV1() {}

  /**
   * The string to sign.
   *
   * @param headers request headers, names in any case, each with its values
   * @param params decoded query parameters; a {@code null} value is a bare name ({@code ?uploads})
   */
  static String stringToSign(
      String verb,
      Map<String, List<String>> headers,
      String bucket,
      String key,
      Map<String, String> params) {
    TreeMap<String, String> ossHeaders = new TreeMap<>();
    String contentMd5 = "";
    String contentType = "";
    String date = "";
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      String name = header.getKey().toLowerCase(Locale.ROOT);
      String value = String.join(",", header.getValue().stream().map(String::trim).toList());
      switch (name) {
        case "content-md5" -> contentMd5 = value;
        case "content-type" -> contentType = value;
        case "date" -> date = value;
        default -> {
          if (name.startsWith("x-oss-")) {
            ossHeaders.put(name, value);
          }
        }
      }
    }
    StringBuilder s = new StringBuilder();
    s.append(verb)
        .append('\n')
        .append(contentMd5)
        .append('\n')
        .append(contentType)
        .append('\n')
        .append(date)
        .append('\n');
    ossHeaders.forEach((name, value) -> s.append(name).append(':').append(value).append('\n'));
    s.append(canonicalResource(bucket, key, params));
    return s.toString();
  }

  static String canonicalResource(String bucket, String key, Map<String, String> params) {
    StringBuilder s = new StringBuilder("/");
    if (bucket != null) {
      s.append(bucket).append('/');
      if (key != null) {
        s.append(key);
      }
    }
    char separator = '?';
    for (Map.Entry<String, String> p : new TreeMap<>(params).entrySet()) {
      if (!SUBRESOURCES.contains(p.getKey())) {
        continue;
      }
      s.append(separator).append(p.getKey());
      if (p.getValue() != null) {
        s.append('=').append(p.getValue());
      }
      separator = '&';
    }
    return s.toString();
  }

  static String sign(String secret, String stringToSign) {
    try {
      Mac mac = Mac.getInstance("HmacSHA1");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
      return Base64.getEncoder()
          .encodeToString(mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA1 is part of every JDK", e);
    }
  }

  /** Constant-time comparison of two signatures. */
  static boolean matches(String expected, String given) {
    return MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }
}
