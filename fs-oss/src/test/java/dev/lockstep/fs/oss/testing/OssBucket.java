package dev.lockstep.fs.oss.testing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.w3c.dom.Element;

/**
 * One bucket of the test server: objects in key order, multipart uploads in progress, and a lock
 * stripe per key so that every check-and-put ({@code x-oss-forbid-overwrite: true}) is atomic.
 */
final class OssBucket {

  /** An object as stored: immutable. */
  record StoredObject(
      byte[] content,
      String etag,
      String contentMd5,
      String objectType,
      Instant lastModified,
      String contentType,
      Map<String, String> userMetadata) {}

  /** A multipart upload in progress ("InitiateMultipartUpload"). */
  record Upload(
      String key,
      String contentType,
      Map<String, String> userMetadata,
      ConcurrentSkipListMap<Integer, StoredObject> parts) {}

  /** "CompleteMultipartUpload": every part but the last must be at least 100 KB. */
  static final int MIN_PART_SIZE = 100 * 1024;

  private static final DateTimeFormatter ISO8601 =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.US)
          .withZone(ZoneOffset.UTC);

  final String name;
  final ConcurrentSkipListMap<String, StoredObject> objects = new ConcurrentSkipListMap<>();
  final ConcurrentHashMap<String, Upload> uploads = new ConcurrentHashMap<>();
  private final Object[] stripes = new Object[256];

  OssBucket(String name) {
    this.name = name;
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new Object();
    }
  }

  /** The monitor that serializes every write of {@code key}. */
  private Object lockFor(String key) {
    return stripes[Math.floorMod(key.hashCode(), stripes.length)];
  }

  /**
   * Publishes {@code object} at {@code key}: "PutObject", "CopyObject" and
   * "CompleteMultipartUpload" all end here. With {@code x-oss-forbid-overwrite: true} an existing
   * object answers 409 {@code FileAlreadyExists}; the check and the put happen under the key's
   * monitor, so of many concurrent creators exactly one wins.
   */
  void publish(String key, StoredObject object, boolean forbidOverwrite) throws OssError {
    synchronized (lockFor(key)) {
      if (forbidOverwrite && objects.containsKey(key)) {
        throw OssError.fileAlreadyExists(key);
      }
      objects.put(key, object);
    }
  }

  StoredObject get(String key) throws OssError {
    StoredObject object = objects.get(key);
    if (object == null) {
      throw OssError.noSuchKey(key);
    }
    return object;
  }

  /** "PutObject": a Normal object whose ETag is the upper-case hex MD5 of its content. */
  static StoredObject normalObject(byte[] content, String contentType, Map<String, String> meta) {
    byte[] md5 = md5(content);
    return new StoredObject(
        content,
        HexFormat.of().withUpperCase().formatHex(md5),
        Base64.getEncoder().encodeToString(md5),
        "Normal",
        Instant.now(),
        contentType,
        meta);
  }

  /**
   * "InitiateMultipartUpload": a new upload id; forbid-overwrite is checked here and on complete.
   */
  String initiate(String key, String contentType, Map<String, String> meta, boolean forbidOverwrite)
      throws OssError {
    if (forbidOverwrite && objects.containsKey(key)) {
      throw OssError.fileAlreadyExists(key);
    }
    String uploadId = UUID.randomUUID().toString().replace("-", "").toUpperCase(Locale.ROOT);
    uploads.put(uploadId, new Upload(key, contentType, meta, new ConcurrentSkipListMap<>()));
    return uploadId;
  }

  Upload upload(String key, String uploadId) throws OssError {
    Upload upload = uploads.get(uploadId);
    if (upload == null || !upload.key().equals(key)) {
      throw OssError.noSuchUpload(uploadId);
    }
    return upload;
  }

  /** "UploadPart": part numbers 1 to 10000; a part uploaded again replaces the earlier one. */
  StoredObject uploadPart(String key, String uploadId, String partNumber, byte[] content)
      throws OssError {
    int number;
    try {
      number = Integer.parseInt(partNumber);
    } catch (NumberFormatException e) {
      throw OssError.invalidArgument("Part number must be an integer between 1 and 10000.");
    }
    if (number < 1 || number > 10000) {
      throw OssError.invalidArgument("Part number must be an integer between 1 and 10000.");
    }
    Upload upload = upload(key, uploadId);
    StoredObject part = normalObject(content, null, Map.of());
    upload.parts().put(number, part);
    return part;
  }

  /**
   * "CompleteMultipartUpload": the listed parts, in ascending order ({@code InvalidPartOrder}),
   * each uploaded with the given ETag ({@code InvalidPart}), all but the last at least 100 KB
   * ({@code EntityTooSmall}). The object's ETag is the MD5 of the parts' MD5s, then {@code
   * -<count>}.
   */
  StoredObject complete(String key, String uploadId, byte[] body, boolean forbidOverwrite)
      throws OssError {
    Upload upload = upload(key, uploadId);
    Element root = OssXml.parse(body);
    List<Element> listed = OssXml.children(root, "Part");
    if (listed.isEmpty()) {
      throw new OssError(
          400,
          "MalformedXML",
          "0042-00000204",
          "The XML you provided was not well-formed: no Part.");
    }
    List<StoredObject> parts = new ArrayList<>();
    int previous = 0;
    for (Element element : listed) {
      int number = Integer.parseInt(OssXml.childText(element, "PartNumber").trim());
      if (number <= previous) {
        throw new OssError(
            400,
            "InvalidPartOrder",
            "0042-00000209",
            "The list of parts was not in ascending order.");
      }
      previous = number;
      String etag = OssXml.childText(element, "ETag").replace("\"", "").trim();
      StoredObject part = upload.parts().get(number);
      if (part == null || !part.etag().equalsIgnoreCase(etag)) {
        throw new OssError(
            400,
            "InvalidPart",
            "0042-00000208",
            "One or more of the specified"
                + " parts could not be found or the specified entity tag might not have matched the"
                + " part's entity tag.");
      }
      parts.add(part);
    }
    for (int i = 0; i < parts.size() - 1; i++) {
      if (parts.get(i).content().length < MIN_PART_SIZE) {
        throw new OssError(
            400,
            "EntityTooSmall",
            "0042-00000206",
            "Your proposed upload is smaller than the minimum allowed size (100 KB per part).");
      }
    }
    int total = parts.stream().mapToInt(p -> p.content().length).sum();
    byte[] content = new byte[total];
    MessageDigest ofMd5s = digest();
    int at = 0;
    for (StoredObject part : parts) {
      System.arraycopy(part.content(), 0, content, at, part.content().length);
      at += part.content().length;
      ofMd5s.update(HexFormat.of().parseHex(part.etag()));
    }
    StoredObject object =
        new StoredObject(
            content,
            HexFormat.of().withUpperCase().formatHex(ofMd5s.digest()) + "-" + parts.size(),
            null,
            "Multipart",
            Instant.now(),
            upload.contentType(),
            upload.userMetadata());
    synchronized (lockFor(key)) {
      if (uploads.get(uploadId) != upload) {
        throw OssError.noSuchUpload(uploadId);
      }
      publish(key, object, forbidOverwrite);
      uploads.remove(uploadId);
    }
    return object;
  }

  /** "AbortMultipartUpload": the upload and its parts are gone. */
  void abort(String key, String uploadId) throws OssError {
    synchronized (lockFor(key)) {
      upload(key, uploadId);
      uploads.remove(uploadId);
    }
  }

  /**
   * "ListObjects" (v1) and "ListObjectsV2": keys after {@code after} that start with {@code
   * prefix}, in UTF-8 binary order; with a delimiter, keys that have it after the prefix roll up
   * into one {@code CommonPrefixes} entry, which counts against {@code max-keys} like a key. A
   * marker that is itself a common prefix skips every key under it.
   */
  Listing list(String prefix, String delimiter, String after, int maxKeys) {
    NavigableMap<String, StoredObject> tail =
        after == null || after.isEmpty() ? objects : objects.tailMap(after, false);
    List<String> keys = new ArrayList<>();
    List<String> commonPrefixes = new ArrayList<>();
    String lastEntry = null;
    boolean truncated = false;
    String skipUnder =
        after != null && !delimiter.isEmpty() && after.endsWith(delimiter) ? after : null;
    for (String key : tail.keySet()) {
      if (!key.startsWith(prefix)) {
        if (key.compareTo(prefix) > 0) {
          break;
        }
        continue;
      }
      if (skipUnder != null && key.startsWith(skipUnder)) {
        continue;
      }
      String entry = key;
      boolean common = false;
      if (!delimiter.isEmpty()) {
        int cut = key.indexOf(delimiter, prefix.length());
        if (cut >= 0) {
          entry = key.substring(0, cut + delimiter.length());
          common = true;
        }
      }
      if (entry.equals(lastEntry)) {
        continue;
      }
      if (keys.size() + commonPrefixes.size() >= maxKeys) {
        truncated = true;
        break;
      }
      if (common) {
        commonPrefixes.add(entry);
        skipUnder = entry;
      } else {
        keys.add(entry);
      }
      lastEntry = entry;
    }
    return new Listing(keys, commonPrefixes, truncated, truncated ? lastEntry : null);
  }

  record Listing(List<String> keys, List<String> commonPrefixes, boolean truncated, String next) {}

  static String iso8601(Instant instant) {
    return ISO8601.format(instant);
  }

  static byte[] md5(byte[] content) {
    return digest().digest(content);
  }

  private static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is part of every JDK", e);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
