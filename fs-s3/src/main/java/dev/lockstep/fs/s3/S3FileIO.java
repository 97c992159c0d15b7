package dev.lockstep.fs.s3;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.StoreEndpoint;
import dev.lockstep.fs.SupportsWriteDeadline;
import dev.lockstep.fs.conditional.ConditionalPublisher;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An S3 bucket (or any S3-compatible store) as a {@link FileIO}, <em>without</em> atomic create:
 * what {@code s3.conditional-writes=false} gives, and what {@code auto} gives on a store that does
 * not honour {@code If-None-Match: *}. Commits on it need {@code lock.enabled=true}. {@link
 * S3ConditionalFileIO} adds atomic create.
 *
 * <p>Mapping: {@code s3://bucket/a/b} is the object {@code a/b} in {@code bucket}. Directories are
 * key prefixes ending in {@code /}: a directory exists while some key lies under it, or while its
 * marker object {@code a/b/} (written by {@link #mkdirs}) exists.
 *
 * <ul>
 *   <li>Reads: {@link S3InputStream}, ranged GETs for seeks and positioned reads.
 *   <li>Writes: {@link S3OutputStream}, buffered, multipart above {@code s3.multipart.threshold},
 *       nothing visible before close.
 *   <li>{@link #list}: ListObjectsV2 with delimiter {@code /}, every page.
 *   <li>{@link #delete} of a directory: ListObjectsV2 without delimiter and DeleteObjects in
 *       batches of {@value #DELETE_BATCH} (S3's limit). Not atomic: a failure part-way leaves some
 *       keys; deleting again finishes the job.
 *   <li>{@link #getStatus}: HEAD for files, a one-key prefix listing for directories.
 * </ul>
 *
 * <p>Thread-safe. The SDK's standard retries ({@code s3.retry.*}) apply to every call but the
 * conditional writes of {@link S3ConditionalFileIO}.
 */
public class S3FileIO implements FileIO, SupportsWriteDeadline, StoreEndpoint {

  /** The most keys one DeleteObjects call takes, and one ListObjectsV2 page returns. */
  static final int DELETE_BATCH = 1000;

  private final S3Options options;
  private final S3Clients clients;
  private final ConditionalWriter writer;
  private final int pageSize;
  private final AtomicBoolean closed = new AtomicBoolean();

  S3FileIO(S3Options options, S3Clients clients) {
    this(options, clients, DELETE_BATCH);
  }

  /** With smaller list pages and delete batches, so that tests cross their boundaries cheaply. */
  S3FileIO(S3Options options, S3Clients clients, int pageSize) {
    this.options = options;
    this.clients = clients;
    this.writer = new ConditionalWriter(clients, options);
    this.pageSize = pageSize;
  }

  S3Options options() {
    return options;
  }

  S3Clients clients() {
    return clients;
  }

  ConditionalWriter writer() {
    return writer;
  }

  /** How {@code newOutputStream(path, overwrite=false)} publishes. */
  S3OutputStream.Mode ifAbsentMode() {
    return S3OutputStream.Mode.CHECK_ABSENT;
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    S3Location location = S3Location.of(path);
    if (location.isRoot()) {
      throw new FileNotFoundException(path + " is a bucket root, not a file");
    }
    return S3InputStream.open(clients.retrying(), location);
  }

  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    S3Location location = S3Location.of(path);
    if (location.isRoot()) {
      throw new IOException("Cannot write to a bucket root: " + path);
    }
    if (overwrite) {
      return new S3OutputStream(this, path, location, S3OutputStream.Mode.OVERWRITE);
    }
    requireAbsent(path, location);
    return new S3OutputStream(this, path, location, ifAbsentMode());
  }

  /**
   * One PutObject whose api-call and attempt timeouts are what is left of {@code timeout}, with no
   * SDK retry: when the deadline hits, the SDK aborts the connection, so an upload still being sent
   * is never completed later. A deadline hit after the body was sent is uncertain (the server may
   * have applied it). Used by the commit protocol for plain writes under a lock lease.
   */
  @Override
  public void writeWithin(Path path, byte[] content, boolean overwrite, Duration timeout)
      throws IOException {
    long start = System.nanoTime();
    S3Location location = S3Location.of(path);
    if (location.isRoot()) {
      throw new IOException("Cannot write to a bucket root: " + path);
    }
    if (!overwrite) {
      requireAbsent(path, location);
    }
    // The one attempt, aborted by the SDK when what is left of the deadline runs out.
    ConditionalPublisher.DeadlineAttempt putOnce =
        left ->
            clients
                .singleAttempt()
                .putObject(
                    b ->
                        b.bucket(location.bucket())
                            .key(location.key())
                            .overrideConfiguration(
                                c -> c.apiCallTimeout(left).apiCallAttemptTimeout(left)),
                    RequestBody.fromBytes(content));
    writer.publisher().writeWithin(path, "PutObject", start, timeout, putOnce);
  }

  /** Fails with {@link FileAlreadyExistsException} when an object is at the key (not atomic). */
  void requireAbsent(Path path, S3Location location) throws IOException {
    if (head(location) != null) {
      throw new FileAlreadyExistsException(path.toString(), null, "an object is already there");
    }
  }

  /** HEAD of the key, or {@code null} when there is no object. */
  private HeadObjectResponse head(S3Location location) throws IOException {
    try {
      return clients.retrying().headObject(b -> b.bucket(location.bucket()).key(location.key()));
    } catch (SdkException e) {
      if (S3Errors.isNotFound(e) && !S3Errors.code(e).equals("NoSuchBucket")) {
        return null;
      }
      throw S3Errors.translate("Reading the status of", location, e);
    }
  }

  @Override
  public FileStatus getStatus(Path path) throws IOException {
    S3Location location = S3Location.of(path);
    if (location.isRoot()) {
      return new FileStatus(path, 0, true, 0);
    }
    HeadObjectResponse head = head(location);
    if (head != null) {
      return new FileStatus(
          path,
          head.contentLength() == null ? 0 : head.contentLength(),
          false,
          head.lastModified() == null ? 0 : head.lastModified().toEpochMilli());
    }
    if (!listOnePage(location, 1).contents().isEmpty()) {
      return new FileStatus(path, 0, true, 0);
    }
    throw new FileNotFoundException(path + " does not exist");
  }

  private ListObjectsV2Response listOnePage(S3Location location, int maxKeys) throws IOException {
    try {
      return clients
          .retrying()
          .listObjectsV2(
              b -> b.bucket(location.bucket()).prefix(location.childPrefix()).maxKeys(maxKeys));
    } catch (SdkException e) {
      throw S3Errors.translate("Listing", location, e);
    }
  }

  @Override
  public boolean exists(Path path) throws IOException {
    try {
      getStatus(path);
      return true;
    } catch (FileNotFoundException e) {
      return false;
    }
  }

  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    S3Location location = S3Location.of(directory);
    String prefix = location.childPrefix();
    List<FileStatus> children = new ArrayList<>();
    try {
      for (ListObjectsV2Response page :
          clients
              .retrying()
              .listObjectsV2Paginator(
                  b ->
                      b.bucket(location.bucket())
                          .prefix(prefix)
                          .delimiter("/")
                          .maxKeys(pageSize))) {
        for (S3Object object : page.contents()) {
          String name = object.key().substring(prefix.length());
          if (!name.isEmpty()) {
            children.add(
                new FileStatus(
                    directory.child(name),
                    object.size() == null ? 0 : object.size(),
                    false,
                    object.lastModified() == null ? 0 : object.lastModified().toEpochMilli()));
          }
        }
        for (CommonPrefix common : page.commonPrefixes()) {
          String name = common.prefix().substring(prefix.length());
          name = name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
          if (!name.isEmpty()) {
            children.add(new FileStatus(directory.child(name), 0, true, 0));
          }
        }
      }
    } catch (SdkException e) {
      if (S3Errors.isNotFound(e) && !S3Errors.code(e).equals("NoSuchBucket")) {
        return List.of();
      }
      throw S3Errors.translate("Listing", location, e);
    }
    return children;
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    S3Location location = S3Location.of(path);
    if (!location.isRoot() && head(location) != null) {
      try {
        clients.retrying().deleteObject(b -> b.bucket(location.bucket()).key(location.key()));
        return true;
      } catch (SdkException e) {
        throw S3Errors.translate("Deleting", location, e);
      }
    }
    ListObjectsV2Response firstTwo = listOnePage(location, 2);
    if (firstTwo.contents().isEmpty()) {
      return false;
    }
    boolean onlyMarker =
        firstTwo.contents().size() == 1
            && firstTwo.contents().get(0).key().equals(location.childPrefix());
    if (!recursive && !onlyMarker) {
      throw new DirectoryNotEmptyException(path + " (delete it with recursive=true)");
    }
    deleteUnder(location);
    return true;
  }

  private void deleteUnder(S3Location location) throws IOException {
    List<ObjectIdentifier> batch = new ArrayList<>(pageSize);
    try {
      for (ListObjectsV2Response page :
          clients
              .retrying()
              .listObjectsV2Paginator(
                  b ->
                      b.bucket(location.bucket())
                          .prefix(location.childPrefix())
                          .maxKeys(pageSize))) {
        for (S3Object object : page.contents()) {
          batch.add(ObjectIdentifier.builder().key(object.key()).build());
          if (batch.size() == pageSize) {
            deleteBatch(location, batch);
            batch.clear();
          }
        }
      }
      if (!batch.isEmpty()) {
        deleteBatch(location, batch);
      }
    } catch (SdkException e) {
      throw S3Errors.translate("Deleting the keys under", location, e);
    }
  }

  private void deleteBatch(S3Location location, List<ObjectIdentifier> keys) throws IOException {
    List<ObjectIdentifier> copy = List.copyOf(keys);
    DeleteObjectsResponse response =
        clients
            .retrying()
            .deleteObjects(
                b -> b.bucket(location.bucket()).delete(d -> d.objects(copy).quiet(true)));
    List<S3Error> errors = response.errors();
    if (errors != null && !errors.isEmpty()) {
      S3Error first = errors.get(0);
      throw new IOException(
          "Could not delete "
              + errors.size()
              + " of "
              + copy.size()
              + " keys under "
              + location
              + "; first: "
              + first.key()
              + ": "
              + first.code()
              + " "
              + first.message()
              + ". Deleting again finishes the job.");
    }
  }

  /** Writes the directory marker {@code key/}, so that the directory exists while it is empty. */
  @Override
  public boolean mkdirs(Path path) throws IOException {
    S3Location location = S3Location.of(path);
    if (location.isRoot()) {
      return true;
    }
    if (head(location) != null) {
      throw new FileAlreadyExistsException(
          path.toString(), null, "a file is there, so it cannot be a directory");
    }
    try {
      clients
          .retrying()
          .putObject(
              b -> b.bucket(location.bucket()).key(location.childPrefix()), RequestBody.empty());
      return true;
    } catch (SdkException e) {
      throw S3Errors.translate("Creating the directory marker of", location, e);
    }
  }

  /** Whether this store publishes with {@code If-None-Match: *}. */
  public boolean conditionalWrites() {
    return false;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      clients.close();
    }
  }

  /**
   * {@code <scheme>://<bucket> at <endpoint>} ({@code aws} or {@code aws <region>} without {@code
   * s3.endpoint}): the service and bucket whose conditional-write behaviour the commit protocol's
   * atomic-create probe checks and caches.
   */
  @Override
  public String endpointIdentity(Path path) {
    String endpoint =
        options.endpoint() != null
            ? options.endpoint().toString()
            : options.region() == null ? "aws" : "aws " + options.region();
    return path.scheme() + "://" + S3Location.of(path).bucket() + " at " + endpoint;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName()
        + "{endpoint="
        + (options.endpoint() == null ? "aws" : options.endpoint())
        + ", conditionalWrites="
        + conditionalWrites()
        + "}";
  }
}
