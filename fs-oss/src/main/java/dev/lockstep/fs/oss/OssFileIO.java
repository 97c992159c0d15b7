package dev.lockstep.fs.oss;

import com.aliyun.oss.ClientBuilderConfiguration;
import com.aliyun.oss.OSS;
import com.aliyun.oss.OSSClientBuilder;
import com.aliyun.oss.common.auth.DefaultCredentialProvider;
import com.aliyun.oss.model.DeleteObjectsRequest;
import com.aliyun.oss.model.GenericRequest;
import com.aliyun.oss.model.ListObjectsV2Request;
import com.aliyun.oss.model.ListObjectsV2Result;
import com.aliyun.oss.model.OSSObjectSummary;
import com.aliyun.oss.model.ObjectMetadata;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.StoreEndpoint;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsWriteDeadline;
import dev.lockstep.fs.conditional.ObjectKey;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aliyun OSS ({@code oss://bucket/key}) on the OSS Java SDK, with atomic create through {@code
 * x-oss-forbid-overwrite: true}.
 *
 * <ol>
 *   <li>Keys: {@code oss://bucket/a/b} is key {@code a/b} of bucket {@code bucket}. A directory is
 *       a key prefix ending in {@code /}; it exists while something is under it. {@link #mkdirs}
 *       creates nothing.
 *   <li>Writes ({@link #newOutputStream}, {@link #createAtomically}) buffer in memory and publish
 *       on close with one PutObject, or, above {@value OssOptions#MULTIPART_THRESHOLD}, with a
 *       multipart upload whose CompleteMultipartUpload publishes: nothing is visible before. See
 *       {@link OssPublisher} for retries and uncertain outcomes.
 *   <li>Reads: the first GetObject fixes the length and ETag; later ranged GetObjects carry {@code
 *       If-Match}, so they read that version only (a replaced object fails the read instead of
 *       mixing versions).
 *   <li>Listing: ListObjectsV2 with delimiter {@code /}, page by page. Deleting a directory
 *       recursively lists without delimiter and deletes in DeleteMultipleObjects batches of up to
 *       1000 keys.
 * </ol>
 *
 * <p>Two SDK clients share the options: one with SDK retries for idempotent requests, and one
 * without, for the publishing requests, whose retries {@link OssPublisher} makes itself, because an
 * SDK retry of a forbid-overwrite request that had landed answers {@code FileAlreadyExists} for our
 * own write. {@link #writeWithin} opens a third, short-lived client per call, whose request timeout
 * is that write's deadline (see {@link OssDeadlineWriter}: the SDK has no per-request timeout).
 */
public final class OssFileIO implements SupportsAtomicCreate, SupportsWriteDeadline, StoreEndpoint {

  private static final Logger LOG = LoggerFactory.getLogger(OssFileIO.class);

  private final OssOptions options;
  private final OSS client;
  private final OSS publishClient;
  private final OssErrors errors;
  private final OssPublisher publisher;
  private final OssDeadlineWriter deadlineWriter;

  public OssFileIO(OssOptions options) {
    this.options = options;
    this.client =
        newClient(
            options,
            options.attempts() - 1,
            options.maxConnections(),
            options.requestTimeout().toMillis());
    this.publishClient =
        newClient(options, 0, options.maxConnections(), options.requestTimeout().toMillis());
    this.errors = new OssErrors(options.endpoint(), options.accessKeyId());
    this.publisher = new OssPublisher(client, publishClient, errors, options);
    this.deadlineWriter = new OssDeadlineWriter(options, publisher);
    LOG.debug("Opened OSS store {}", options);
  }

  /** The bucket and key of an {@code oss://bucket/key} path. */
  static ObjectKey keyOf(Path path) {
    return ObjectKey.parse(path, "OSS", "oss://bucket/key", "oss");
  }

  /**
   * An SDK client with the store's endpoint, credentials and connect and socket timeouts.
   *
   * @param sdkRetries the SDK's own retries of a failed request (0 = none)
   * @param requestTimeoutMillis the SDK's whole-request timeout, enforced by aborting the HTTP
   *     request; 0 = none
   */
  static OSS newClient(
      OssOptions options, int sdkRetries, int maxConnections, long requestTimeoutMillis) {
    ClientBuilderConfiguration conf = new ClientBuilderConfiguration();
    conf.setConnectionTimeout(Math.toIntExact(options.connectTimeout().toMillis()));
    conf.setSocketTimeout(Math.toIntExact(options.socketTimeout().toMillis()));
    if (requestTimeoutMillis > 0) {
      conf.setRequestTimeoutEnabled(true);
      conf.setRequestTimeout(Math.toIntExact(requestTimeoutMillis));
    }
    conf.setMaxConnections(maxConnections);
    conf.setMaxErrorRetry(sdkRetries);
    if (options.pathStyle()) {
      conf.setSLDEnabled(true);
    }
    DefaultCredentialProvider credentials =
        options.securityToken() == null
            ? new DefaultCredentialProvider(options.accessKeyId(), options.accessKeySecret())
            : new DefaultCredentialProvider(
                options.accessKeyId(), options.accessKeySecret(), options.securityToken());
    return new OSSClientBuilder().build(options.endpoint(), credentials, conf);
  }

  /** The options this store was opened with. */
  public OssOptions options() {
    return options;
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    ObjectKey key = keyOf(path);
    if (key.isRoot()) {
      throw new FileNotFoundException(path + " is a bucket root, not a file");
    }
    return OssInputStream.open(client, errors, key, path);
  }

  /**
   * A stream whose bytes are published on close (see {@link OssOutputStream}). With {@code
   * overwrite=false} an existing object fails here (a plain check) and again, atomically, on close
   * ({@code x-oss-forbid-overwrite: true}).
   *
   * <ul>
   *   <li>After close: every client reads the new bytes whole.
   *   <li>After a failed close: the old object or nothing, never a torn one; after {@link
   *       dev.lockstep.fs.UncertainWriteException} ours may be there.
   * </ul>
   */
  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    ObjectKey key = keyOf(path);
    if (key.isRoot()) {
      throw new IOException("Cannot write " + path + ": it is a bucket root");
    }
    if (!overwrite && exists(path)) {
      throw new FileAlreadyExistsException(
          path.toString(), null, "the file exists and overwrite=false");
    }
    return new OssOutputStream(publisher, key, path, !overwrite, options);
  }

  /**
   * Publishes {@code content} at {@code path} if no object is there: PutObject (or, above the
   * multipart threshold, a multipart upload) with {@code x-oss-forbid-overwrite: true}.
   *
   * <ul>
   *   <li>After success: the object holds exactly {@code content}.
   *   <li>After {@link FileAlreadyExistsException} (409 {@code FileAlreadyExists}): another object
   *       is there; ours is not.
   *   <li>After {@link dev.lockstep.fs.UncertainWriteException}: the answer was lost and a
   *       read-back could not tell; ours may be there.
   * </ul>
   */
  @Override
  public void createAtomically(Path path, byte[] content) throws IOException {
    ObjectKey key = keyOf(path);
    if (key.isRoot()) {
      throw new IOException("Cannot write " + path + ": it is a bucket root");
    }
    if (content.length <= options.multipartThreshold()) {
      publisher.putObject(key, path, content, content.length, true);
      return;
    }
    try (OssOutputStream out = new OssOutputStream(publisher, key, path, true, options)) {
      out.write(content);
    }
  }

  /**
   * Writes {@code content} at {@code path} with one PutObject that the SDK aborts when {@code
   * timeout} runs out, so that an upload still being sent at the deadline never becomes an object
   * (see {@link OssDeadlineWriter}). Used by the commit protocol for plain writes under a lock
   * lease. Any size up to OSS's PutObject limit (5 GB) goes in that one request, never multipart.
   *
   * <ul>
   *   <li>After success: {@code path} holds {@code content}.
   *   <li>After {@link FileAlreadyExistsException} ({@code overwrite=false}): an object was there
   *       and OSS refused the write ({@code x-oss-forbid-overwrite: true}, 409), atomically;
   *       nothing was written.
   *   <li>After {@link dev.lockstep.fs.UncertainWriteException}: the deadline hit while the request
   *       was in flight, or its answer was lost, or OSS answered 5xx; {@code content} may be there.
   *   <li>After another {@link IOException}: nothing was written (the deadline had passed before
   *       anything was sent, the connection could not be made, or OSS refused the request).
   * </ul>
   */
  @Override
  public void writeWithin(Path path, byte[] content, boolean overwrite, Duration timeout)
      throws IOException {
    ObjectKey key = keyOf(path);
    if (key.isRoot()) {
      throw new IOException("Cannot write " + path + ": it is a bucket root");
    }
    deadlineWriter.write(key, path, content, !overwrite, timeout);
  }

  /** A file (HeadObject), else a directory when a key is under {@code path/}, else not found. */
  @Override
  public FileStatus getStatus(Path path) throws IOException {
    ObjectKey key = keyOf(path);
    if (key.isRoot()) {
      return new FileStatus(path, 0, true, 0);
    }
    ObjectMetadata meta = headOrNull(key, path);
    if (meta != null) {
      return new FileStatus(
          path,
          meta.getContentLength(),
          false,
          meta.getLastModified() == null ? 0 : meta.getLastModified().getTime());
    }
    if (hasChildren(key, path)) {
      return new FileStatus(path, 0, true, 0);
    }
    throw new FileNotFoundException(path + " does not exist");
  }

  @Override
  public boolean exists(Path path) throws IOException {
    ObjectKey key = keyOf(path);
    return key.isRoot() || headOrNull(key, path) != null || hasChildren(key, path);
  }

  /**
   * The objects and common prefixes directly under {@code directory/}, all pages. A key equal to
   * the prefix itself (a directory marker written by another tool) is skipped.
   */
  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    ObjectKey key = keyOf(directory);
    List<FileStatus> out = new ArrayList<>();
    String prefix = key.childPrefix();
    listPages(
        key,
        directory,
        prefix,
        "/",
        page -> {
          for (OSSObjectSummary summary : page.getObjectSummaries()) {
            if (summary.getKey().length() > prefix.length()) {
              out.add(
                  new FileStatus(
                      directory.child(summary.getKey().substring(prefix.length())),
                      summary.getSize(),
                      false,
                      summary.getLastModified() == null ? 0 : summary.getLastModified().getTime()));
            }
          }
          for (String common : page.getCommonPrefixes()) {
            String name = common.substring(prefix.length(), common.length() - 1);
            if (!name.isEmpty()) {
              out.add(new FileStatus(directory.child(name), 0, true, 0));
            }
          }
        });
    if (out.isEmpty() && !key.isRoot() && headOrNull(key, directory) != null) {
      throw new IOException("Cannot list " + directory + ": it is a file");
    }
    return out;
  }

  /**
   * Deletes the object at {@code path}, or with {@code recursive=true} every object under {@code
   * path/} one DeleteMultipleObjects per listed page ({@value OssOptions#LIST_PAGE_SIZE}). After a
   * failure part of a directory may be deleted; deleting again finishes it.
   */
  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    ObjectKey key = keyOf(path);
    if (!key.isRoot() && headOrNull(key, path) != null) {
      try {
        client.deleteObject(key.bucket(), key.key());
      } catch (RuntimeException e) {
        throw errors.translate(e, "DeleteObject", path);
      }
      return true;
    }
    if (!hasChildren(key, path)) {
      return false;
    }
    if (!recursive) {
      throw new IOException(
          "Cannot delete " + path + ": the directory is not empty and" + " recursive=false");
    }
    List<IOException> failures = new ArrayList<>();
    listPages(
        key,
        path,
        key.childPrefix(),
        null,
        page -> {
          List<String> keys = new ArrayList<>();
          page.getObjectSummaries().forEach(s -> keys.add(s.getKey()));
          if (keys.isEmpty()) {
            return;
          }
          try {
            DeleteObjectsRequest request = new DeleteObjectsRequest(key.bucket()).withKeys(keys);
            request.setQuiet(true);
            client.deleteObjects(request);
          } catch (RuntimeException e) {
            failures.add(errors.translate(e, "DeleteMultipleObjects", path));
            throw new StopListing();
          }
        });
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
    return true;
  }

  /** Creates nothing: OSS has no directories; a prefix exists while an object is under it. */
  @Override
  public boolean mkdirs(Path path) {
    return true;
  }

  @Override
  public void close() {
    client.shutdown();
    publishClient.shutdown();
  }

  /**
   * {@code oss://<bucket> at <endpoint>}: the service whose {@code x-oss-forbid-overwrite} the
   * atomic-create probe checks and caches (lock-api README, "The atomic-create probe").
   */
  @Override
  public String endpointIdentity(Path path) {
    return "oss://" + keyOf(path).bucket() + " at " + options.endpoint();
  }

  @Override
  public String toString() {
    return "OssFileIO{" + options.endpoint() + "}";
  }

  private ObjectMetadata headOrNull(ObjectKey key, Path path) throws IOException {
    try {
      GenericRequest request = new GenericRequest(key.bucket(), key.key());
      request.setLogEnabled(false);
      return client.getObjectMetadata(request);
    } catch (RuntimeException e) {
      if (OssErrors.isCode(e, "NoSuchKey")) {
        return null;
      }
      throw errors.translate(e, "HeadObject", path);
    }
  }

  private boolean hasChildren(ObjectKey key, Path path) throws IOException {
    try {
      ListObjectsV2Request request = new ListObjectsV2Request(key.bucket(), key.childPrefix());
      request.setMaxKeys(1);
      return !client.listObjectsV2(request).getObjectSummaries().isEmpty();
    } catch (RuntimeException e) {
      throw errors.translate(e, "ListObjectsV2", path);
    }
  }

  private void listPages(
      ObjectKey key,
      Path path,
      String prefix,
      String delimiter,
      Consumer<ListObjectsV2Result> onPage)
      throws IOException {
    String token = null;
    do {
      ListObjectsV2Result page;
      try {
        ListObjectsV2Request request = new ListObjectsV2Request(key.bucket(), prefix);
        request.setDelimiter(delimiter);
        request.setMaxKeys(options.listPageSize());
        request.setContinuationToken(token);
        page = client.listObjectsV2(request);
      } catch (RuntimeException e) {
        throw errors.translate(e, "ListObjectsV2", path);
      }
      try {
        onPage.accept(page);
      } catch (StopListing stop) {
        return;
      }
      token = page.isTruncated() ? page.getNextContinuationToken() : null;
    } while (token != null);
  }

  /** Ends a listing early from inside a page callback. */
  private static final class StopListing extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StopListing() {
      super(null, null, false, false);
    }
  }
}
