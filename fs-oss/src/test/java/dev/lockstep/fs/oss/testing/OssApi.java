package dev.lockstep.fs.oss.testing;

import dev.lockstep.fs.oss.testing.OssBucket.Listing;
import dev.lockstep.fs.oss.testing.OssBucket.StoredObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.w3c.dom.Element;

/**
 * The OSS API operations the test server serves, each following the OSS API reference entry named.
 */
final class OssApi {

  static final DateTimeFormatter RFC822 =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
          .withZone(ZoneOffset.UTC);

  final ConcurrentHashMap<String, OssBucket> buckets = new ConcurrentHashMap<>();

  /** Names the OSS API operation of a request from its method, target and sub-resources. */
  static String operationOf(
      String method,
      String bucket,
      String key,
      Map<String, String> params,
      Map<String, List<String>> headers) {
    if (bucket == null) {
      return method.equals("GET") ? "ListBuckets" : "Unsupported";
    }
    if (key == null) {
      return switch (method) {
        case "PUT" -> params.isEmpty() ? "PutBucket" : "Unsupported";
        case "GET" ->
            "2".equals(params.get("list-type"))
                ? "ListObjectsV2"
                : onlyListParams(params) ? "ListObjects" : "Unsupported";
        case "POST" -> params.containsKey("delete") ? "DeleteMultipleObjects" : "Unsupported";
        case "DELETE" -> params.isEmpty() ? "DeleteBucket" : "Unsupported";
        default -> "Unsupported";
      };
    }
    return switch (method) {
      case "PUT" ->
          params.containsKey("uploadId") && params.containsKey("partNumber")
              ? "UploadPart"
              : !params.isEmpty()
                  ? "Unsupported"
                  : headers.containsKey("x-oss-copy-source") ? "CopyObject" : "PutObject";
      case "GET" -> params.isEmpty() ? "GetObject" : "Unsupported";
      case "HEAD" ->
          params.isEmpty()
              ? "HeadObject"
              : params.keySet().equals(java.util.Set.of("objectMeta"))
                  ? "GetObjectMeta"
                  : "Unsupported";
      case "DELETE" ->
          params.containsKey("uploadId")
              ? "AbortMultipartUpload"
              : params.isEmpty() ? "DeleteObject" : "Unsupported";
      case "POST" ->
          params.containsKey("uploads")
              ? "InitiateMultipartUpload"
              : params.containsKey("uploadId") ? "CompleteMultipartUpload" : "Unsupported";
      default -> "Unsupported";
    };
  }

  private static boolean onlyListParams(Map<String, String> params) {
    return List.of("prefix", "delimiter", "marker", "max-keys", "encoding-type")
        .containsAll(params.keySet());
  }

  OssAnswer execute(OssRequest r) throws OssError {
    switch (r.operation()) {
      case "PutBucket":
        buckets.putIfAbsent(r.bucket(), new OssBucket(r.bucket()));
        return OssAnswer.empty(200);
      case "DeleteBucket":
        return deleteBucket(r);
      case "Unsupported":
      case "ListBuckets":
        throw new OssError(
            501,
            "NotImplemented",
            "0000-00000000",
            "The OSS test server does not"
                + " implement "
                + r.method()
                + " with parameters "
                + r.params().keySet()
                + ".");
      default:
        break;
    }
    OssBucket bucket = bucket(r.bucket());
    return switch (r.operation()) {
      case "PutObject" -> putObject(bucket, r);
      case "CopyObject" -> copyObject(bucket, r);
      case "GetObject" -> getObject(bucket, r);
      case "HeadObject" -> headObject(bucket, r);
      case "GetObjectMeta" -> objectMeta(bucket, r);
      case "DeleteObject" -> {
        bucket.objects.remove(r.key());
        yield OssAnswer.empty(204);
      }
      case "DeleteMultipleObjects" -> deleteMultiple(bucket, r);
      case "ListObjects" -> listObjects(bucket, r);
      case "ListObjectsV2" -> listObjectsV2(bucket, r);
      case "InitiateMultipartUpload" -> initiate(bucket, r);
      case "UploadPart" -> uploadPart(bucket, r);
      case "CompleteMultipartUpload" -> complete(bucket, r);
      case "AbortMultipartUpload" -> {
        bucket.abort(r.key(), r.params().get("uploadId"));
        yield OssAnswer.empty(204);
      }
      default -> throw new IllegalStateException("unnamed operation " + r.operation());
    };
  }

  OssBucket bucket(String name) throws OssError {
    OssBucket bucket = buckets.get(name);
    if (bucket == null) {
      throw OssError.noSuchBucket(name);
    }
    return bucket;
  }

  /** "DeleteBucket": 409 {@code BucketNotEmpty} while objects remain. */
  private OssAnswer deleteBucket(OssRequest r) throws OssError {
    OssBucket bucket = bucket(r.bucket());
    if (!bucket.objects.isEmpty()) {
      throw new OssError(
          409, "BucketNotEmpty", "0015-00000301", "The bucket you tried to delete is not empty.");
    }
    buckets.remove(r.bucket());
    return OssAnswer.empty(204);
  }

  /**
   * "PutObject": stores the body with its {@code Content-Type} and {@code x-oss-meta-*} headers;
   * answers the ETag and {@code x-oss-hash-crc64ecma}. Honors {@code x-oss-forbid-overwrite}.
   */
  private OssAnswer putObject(OssBucket bucket, OssRequest r) throws OssError {
    StoredObject object = OssBucket.normalObject(r.body(), contentType(r), userMetadata(r));
    bucket.publish(r.key(), object, r.forbidOverwrite());
    return OssAnswer.empty(200)
        .header("ETag", quoted(object.etag()))
        .header("Content-MD5", object.contentMd5())
        .header("x-oss-hash-crc64ecma", Crc64.header(object.content()));
  }

  /**
   * "CopyObject": {@code x-oss-copy-source: /bucket/url-encoded-key}; {@code
   * x-oss-metadata-directive} COPY (default) keeps the source's metadata, REPLACE takes the
   * request's. Honors {@code x-oss-forbid-overwrite}.
   */
  private OssAnswer copyObject(OssBucket bucket, OssRequest r) throws OssError {
    String source = OssTestServer.percentDecode(r.header("x-oss-copy-source"));
    if (!source.startsWith("/") || source.indexOf('/', 1) < 0) {
      throw OssError.invalidArgument("x-oss-copy-source must be /bucket/key: " + source);
    }
    int slash = source.indexOf('/', 1);
    StoredObject from = bucket(source.substring(1, slash)).get(source.substring(slash + 1));
    boolean replace = "REPLACE".equalsIgnoreCase(r.header("x-oss-metadata-directive"));
    StoredObject copy =
        new StoredObject(
            from.content(),
            from.etag(),
            from.contentMd5(),
            from.objectType(),
            java.time.Instant.now(),
            replace ? contentType(r) : from.contentType(),
            replace ? userMetadata(r) : from.userMetadata());
    bucket.publish(r.key(), copy, r.forbidOverwrite());
    return OssAnswer.xml(
            "<CopyObjectResult>"
                + OssXml.element("ETag", quoted(copy.etag()))
                + OssXml.element("LastModified", OssBucket.iso8601(copy.lastModified()))
                + "</CopyObjectResult>")
        .header("ETag", quoted(copy.etag()));
  }

  /**
   * "GetObject" with "Range": {@code bytes=a-b}, {@code bytes=a-}, {@code bytes=-n}. By default OSS
   * answers an invalid or unsatisfiable range with the whole object (200); with {@code
   * x-oss-range-behavior: standard} a start at or past the end answers 416 {@code InvalidRange}.
   * {@code If-Match} with another ETag answers 412 {@code PreconditionFailed}.
   */
  private OssAnswer getObject(OssBucket bucket, OssRequest r) throws OssError {
    StoredObject object = bucket.get(r.key());
    checkIfMatch(r, object);
    byte[] content = object.content();
    long[] range =
        range(
            r.header("range"),
            content.length,
            "standard".equalsIgnoreCase(r.header("x-oss-range-behavior")));
    OssAnswer answer;
    if (range == null) {
      answer = new OssAnswer(200, content);
    } else {
      byte[] slice = java.util.Arrays.copyOfRange(content, (int) range[0], (int) range[1] + 1);
      answer =
          new OssAnswer(206, slice)
              .header("Content-Range", "bytes " + range[0] + "-" + range[1] + "/" + content.length);
    }
    return objectHeaders(answer, object);
  }

  /** "HeadObject": the GetObject headers without a body. */
  private OssAnswer headObject(OssBucket bucket, OssRequest r) throws OssError {
    StoredObject object = bucket.get(r.key());
    checkIfMatch(r, object);
    return objectHeaders(OssAnswer.empty(200), object)
        .header("Content-Length", Integer.toString(object.content().length));
  }

  /** "GetObjectMeta" ({@code HEAD ?objectMeta}): ETag, size and Last-Modified only. */
  private OssAnswer objectMeta(OssBucket bucket, OssRequest r) throws OssError {
    StoredObject object = bucket.get(r.key());
    return OssAnswer.empty(200)
        .header("ETag", quoted(object.etag()))
        .header("Content-Length", Integer.toString(object.content().length))
        .header("Last-Modified", RFC822.format(object.lastModified()));
  }

  private static void checkIfMatch(OssRequest r, StoredObject object) throws OssError {
    String ifMatch = r.header("if-match");
    if (ifMatch != null && !ifMatch.replace("\"", "").trim().equalsIgnoreCase(object.etag())) {
      throw new OssError(
          412,
          "PreconditionFailed",
          "0026-00000007",
          "At least one of the pre-conditions you specified did not hold.");
    }
  }

  private static OssAnswer objectHeaders(OssAnswer answer, StoredObject object) {
    answer
        .header("Content-Type", object.contentType())
        .header("ETag", quoted(object.etag()))
        .header("Last-Modified", RFC822.format(object.lastModified()))
        .header("Accept-Ranges", "bytes")
        .header("x-oss-object-type", object.objectType())
        .header("x-oss-storage-class", "Standard")
        .header("x-oss-hash-crc64ecma", Crc64.header(object.content()));
    if (object.contentMd5() != null) {
      answer.header("Content-MD5", object.contentMd5());
    }
    object.userMetadata().forEach((k, v) -> answer.header("x-oss-meta-" + k, v));
    return answer;
  }

  /** The inclusive byte range to serve, or {@code null} for the whole object. */
  static long[] range(String header, long size, boolean standard) throws OssError {
    if (header == null) {
      return null;
    }
    String spec = header.trim();
    if (!spec.startsWith("bytes=") || spec.contains(",")) {
      return null;
    }
    String[] ends = spec.substring("bytes=".length()).split("-", -1);
    try {
      if (ends.length != 2) {
        return null;
      }
      long start;
      long end;
      if (ends[0].isEmpty()) {
        long suffix = Long.parseLong(ends[1]);
        start = Math.max(0, size - suffix);
        end = size - 1;
      } else {
        start = Long.parseLong(ends[0]);
        end = ends[1].isEmpty() ? size - 1 : Long.parseLong(ends[1]);
      }
      if (start > end && !ends[1].isEmpty()) {
        return null;
      }
      if (start >= size) {
        if (standard) {
          throw new OssError(
              416, "InvalidRange", "0026-00000008", "The requested range cannot be satisfied.");
        }
        return null;
      }
      if (end >= size) {
        if (!standard) {
          return null;
        }
        end = size - 1;
      }
      return new long[] {start, end};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * "DeleteMultipleObjects": {@code <Delete><Quiet/><Object><Key/></Object>...</Delete>}, at most
   * 1000 keys; missing keys count as deleted; quiet mode lists nothing.
   */
  private OssAnswer deleteMultiple(OssBucket bucket, OssRequest r) throws OssError {
    Element root = OssXml.parse(r.body());
    boolean quiet = "true".equalsIgnoreCase(String.valueOf(OssXml.childText(root, "Quiet")).trim());
    List<Element> objects = OssXml.children(root, "Object");
    if (objects.size() > 1000) {
      throw new OssError(
          400,
          "MalformedXML",
          "0016-00000002",
          "DeleteMultipleObjects takes at most 1000 keys, not " + objects.size() + ".");
    }
    boolean url = "url".equals(r.params().get("encoding-type"));
    StringBuilder xml = new StringBuilder("<DeleteResult>");
    for (Element object : objects) {
      String key = OssXml.childText(object, "Key");
      bucket.objects.remove(key);
      if (!quiet) {
        xml.append("<Deleted>")
            .append(OssXml.element("Key", url ? urlEncode(key) : key))
            .append("</Deleted>");
      }
    }
    if (url) {
      xml.append(OssXml.element("EncodingType", "url"));
    }
    return OssAnswer.xml(xml.append("</DeleteResult>").toString());
  }

  /**
   * "ListObjects" (GetBucket v1): prefix, delimiter, marker, max-keys (default 100, at most 1000).
   */
  private OssAnswer listObjects(OssBucket bucket, OssRequest r) throws OssError {
    Map<String, String> p = r.params();
    String prefix = p.getOrDefault("prefix", "");
    String delimiter = p.getOrDefault("delimiter", "");
    String marker = p.getOrDefault("marker", "");
    int maxKeys = maxKeys(p.get("max-keys"));
    boolean url = "url".equals(p.get("encoding-type"));
    Listing listing = bucket.list(prefix, delimiter, marker, maxKeys);
    StringBuilder xml = new StringBuilder("<ListBucketResult>");
    xml.append(OssXml.element("Name", bucket.name))
        .append(text("Prefix", prefix, url))
        .append(text("Marker", marker, url))
        .append(OssXml.element("MaxKeys", maxKeys))
        .append(text("Delimiter", delimiter, url))
        .append(OssXml.element("IsTruncated", listing.truncated()));
    if (listing.next() != null) {
      xml.append(text("NextMarker", listing.next(), url));
    }
    if (url) {
      xml.append(OssXml.element("EncodingType", "url"));
    }
    appendEntries(xml, bucket, listing, url, true);
    return OssAnswer.xml(xml.append("</ListBucketResult>").toString());
  }

  /**
   * "ListObjectsV2" (GetBucketV2, {@code list-type=2}): prefix, delimiter, start-after,
   * continuation-token (opaque), max-keys, fetch-owner; answers KeyCount and NextContinuationToken.
   */
  private OssAnswer listObjectsV2(OssBucket bucket, OssRequest r) throws OssError {
    Map<String, String> p = r.params();
    String prefix = p.getOrDefault("prefix", "");
    String delimiter = p.getOrDefault("delimiter", "");
    int maxKeys = maxKeys(p.get("max-keys"));
    boolean url = "url".equals(p.get("encoding-type"));
    String token = p.get("continuation-token");
    String after = p.getOrDefault("start-after", "");
    if (token != null) {
      try {
        after = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw OssError.invalidArgument("The continuation token provided is incorrect.");
      }
    }
    Listing listing = bucket.list(prefix, delimiter, after, maxKeys);
    StringBuilder xml = new StringBuilder("<ListBucketResult>");
    xml.append(OssXml.element("Name", bucket.name))
        .append(text("Prefix", prefix, url))
        .append(OssXml.element("MaxKeys", maxKeys))
        .append(text("Delimiter", delimiter, url))
        .append(OssXml.element("IsTruncated", listing.truncated()))
        .append(
            OssXml.element("KeyCount", listing.keys().size() + listing.commonPrefixes().size()));
    if (p.containsKey("start-after")) {
      xml.append(text("StartAfter", p.get("start-after"), url));
    }
    if (token != null) {
      xml.append(OssXml.element("ContinuationToken", token));
    }
    if (listing.next() != null) {
      xml.append(
          OssXml.element(
              "NextContinuationToken",
              Base64.getUrlEncoder()
                  .encodeToString(listing.next().getBytes(StandardCharsets.UTF_8))));
    }
    if (url) {
      xml.append(OssXml.element("EncodingType", "url"));
    }
    appendEntries(xml, bucket, listing, url, "true".equals(p.get("fetch-owner")));
    return OssAnswer.xml(xml.append("</ListBucketResult>").toString());
  }

  private static void appendEntries(
      StringBuilder xml, OssBucket bucket, Listing listing, boolean url, boolean owner) {
    for (String key : listing.keys()) {
      StoredObject object = bucket.objects.get(key);
      if (object == null) {
        continue; // deleted while listing
      }
      xml.append("<Contents>")
          .append(text("Key", key, url))
          .append(OssXml.element("LastModified", OssBucket.iso8601(object.lastModified())))
          .append(OssXml.element("ETag", quoted(object.etag())))
          .append(OssXml.element("Type", object.objectType()))
          .append(OssXml.element("Size", object.content().length))
          .append(OssXml.element("StorageClass", "Standard"));
      if (owner) {
        xml.append(
            "<Owner><ID>1000000000000000</ID><DisplayName>1000000000000000</DisplayName>"
                + "</Owner>");
      }
      xml.append("</Contents>");
    }
    for (String prefix : listing.commonPrefixes()) {
      xml.append("<CommonPrefixes>")
          .append(text("Prefix", prefix, url))
          .append("</CommonPrefixes>");
    }
  }

  private static int maxKeys(String value) throws OssError {
    if (value == null) {
      return 100;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= 1 && n <= 1000) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw OssError.invalidArgument("max-keys must be between 1 and 1000, not '" + value + "'.");
  }

  /** "InitiateMultipartUpload": answers the upload id; honors {@code x-oss-forbid-overwrite}. */
  private OssAnswer initiate(OssBucket bucket, OssRequest r) throws OssError {
    String uploadId =
        bucket.initiate(r.key(), contentType(r), userMetadata(r), r.forbidOverwrite());
    return OssAnswer.xml(
        "<InitiateMultipartUploadResult>"
            + OssXml.element("Bucket", bucket.name)
            + OssXml.element("Key", r.key())
            + OssXml.element("UploadId", uploadId)
            + "</InitiateMultipartUploadResult>");
  }

  /** "UploadPart": answers the part's ETag and {@code x-oss-hash-crc64ecma}. */
  private OssAnswer uploadPart(OssBucket bucket, OssRequest r) throws OssError {
    StoredObject part =
        bucket.uploadPart(
            r.key(), r.params().get("uploadId"), r.params().get("partNumber"), r.body());
    return OssAnswer.empty(200)
        .header("ETag", quoted(part.etag()))
        .header("x-oss-hash-crc64ecma", Crc64.header(part.content()));
  }

  /**
   * "CompleteMultipartUpload": publishes the parts as one object, atomically with respect to {@code
   * x-oss-forbid-overwrite}; the upload is gone afterwards (a repeat answers {@code NoSuchUpload}).
   */
  private OssAnswer complete(OssBucket bucket, OssRequest r) throws OssError {
    StoredObject object =
        bucket.complete(r.key(), r.params().get("uploadId"), r.body(), r.forbidOverwrite());
    return OssAnswer.xml(
            "<CompleteMultipartUploadResult>"
                + OssXml.element("Location", "http://" + bucket.name + ".oss-test/" + r.key())
                + OssXml.element("Bucket", bucket.name)
                + OssXml.element("Key", r.key())
                + OssXml.element("ETag", quoted(object.etag()))
                + "</CompleteMultipartUploadResult>")
        .header("x-oss-hash-crc64ecma", Crc64.header(object.content()));
  }

  private static String contentType(OssRequest r) {
    String type = r.header("content-type");
    return type == null || type.isBlank() ? "application/octet-stream" : type;
  }

  private static Map<String, String> userMetadata(OssRequest r) {
    Map<String, String> meta = new LinkedHashMap<>();
    r.headers()
        .forEach(
            (name, values) -> {
              if (name.startsWith("x-oss-meta-")) {
                meta.put(name.substring("x-oss-meta-".length()), String.join(",", values));
              }
            });
    return Map.copyOf(meta);
  }

  private static String text(String element, String value, boolean url) {
    return OssXml.element(element, url ? urlEncode(value) : value);
  }

  static String urlEncode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  static String quoted(String etag) {
    return "\"" + etag + "\"";
  }
}
