package dev.lockstep.fs.s3;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import java.io.IOException;
import java.io.OutputStream;
import java.util.UUID;

/**
 * {@link S3FileIO} on a store that honours {@code If-None-Match: *} atomically (AWS S3 since 2024,
 * s3proxy 4.0+, MinIO, Ceph RGW Squid+, ...): snapshot commits need no lock.
 *
 * <p>{@link #createAtomically}: at or below {@code s3.multipart.threshold} one PutObject, above it
 * a multipart upload whose CompleteMultipartUpload carries the condition; both go through {@link
 * ConditionalWriter}, which reports a lost answer as {@link
 * dev.lockstep.fs.UncertainWriteException} and never reports our own landed write as someone
 * else's. {@code newOutputStream(path, false)} publishes the same way, so it is atomic on this
 * store too.
 */
public final class S3ConditionalFileIO extends S3FileIO implements SupportsAtomicCreate {

  S3ConditionalFileIO(S3Options options, S3Clients clients) {
    super(options, clients);
  }

  @Override
  S3OutputStream.Mode ifAbsentMode() {
    return S3OutputStream.Mode.IF_ABSENT;
  }

  /**
   * Creates {@code path} with {@code content} if nothing is there.
   *
   * <ul>
   *   <li>Before: anything.
   *   <li>After success: {@code path} holds exactly {@code content}; no concurrent caller
   *       succeeded.
   *   <li>After {@link java.nio.file.FileAlreadyExistsException}: another writer's object is there;
   *       ours was not published (an aborted multipart upload leaves nothing visible).
   *   <li>After {@link dev.lockstep.fs.UncertainWriteException}: ours may or may not be there.
   *   <li>After another {@link IOException}: ours was not published.
   * </ul>
   */
  @Override
  public void createAtomically(Path path, byte[] content) throws IOException {
    S3Location location = S3Location.of(path);
    if (location.isRoot()) {
      throw new IOException("Cannot write to a bucket root: " + path);
    }
    if (content.length <= options().multipartThreshold()) {
      writer().putIfAbsent(path, location, content, UUID.randomUUID().toString());
      return;
    }
    try (OutputStream out =
        new S3OutputStream(this, path, location, S3OutputStream.Mode.IF_ABSENT)) {
      out.write(content);
    }
  }

  @Override
  public boolean conditionalWrites() {
    return true;
  }
}
