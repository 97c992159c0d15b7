package dev.lockstep.fs.s3;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * Writes one S3 object; nothing is visible at the key before {@link #close()} returns.
 *
 * <ol>
 *   <li>Bytes are buffered in memory up to {@code s3.multipart.threshold}.
 *   <li>A stream closed at or below the threshold publishes with one PutObject.
 *   <li>Beyond the threshold a multipart upload starts: every {@code s3.multipart.part-size} bytes
 *       are uploaded as a part (SDK retries; parts are idempotent). Close uploads the rest as the
 *       last part and completes the upload: only then does the object appear, whole.
 *   <li>In {@link Mode#IF_ABSENT} the final PutObject or CompleteMultipartUpload carries {@code
 *       If-None-Match: *} through {@link ConditionalWriter}; a conflict raises {@link
 *       FileAlreadyExistsException} and publishes nothing.
 *   <li>In {@link Mode#CHECK_ABSENT} (a store without conditional writes and {@code
 *       overwrite=false}) the key is checked when the stream opens and again just before
 *       publishing; a writer racing in between can still be overwritten, which {@link
 *       dev.lockstep.fs.FileIO} allows.
 *   <li>After any failure before publishing, the multipart upload is aborted (best effort). After
 *       an {@link UncertainWriteException} it is left alone: it may be what got published. A bucket
 *       lifecycle rule {@code AbortIncompleteMultipartUpload} removes what a crashed writer leaves.
 * </ol>
 */
final class S3OutputStream extends OutputStream {

  /** How the final publish treats an existing object. */
  enum Mode {
    OVERWRITE,
    CHECK_ABSENT,
    IF_ABSENT
  }

  private final S3FileIO store;
  private final Path path;
  private final S3Location location;
  private final Mode mode;
  private final String writeId = UUID.randomUUID().toString();
  private final long threshold;
  private final int partSize;
  private byte[] buffer = new byte[8192];
  private int size;
  private String uploadId;
  private final List<CompletedPart> parts = new ArrayList<>();
  private boolean closed;

  S3OutputStream(S3FileIO store, Path path, S3Location location, Mode mode) {
    this.store = store;
    this.path = path;
    this.location = location;
    this.mode = mode;
    this.threshold = store.options().multipartThreshold();
    this.partSize = (int) store.options().multipartPartSize();
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    checkOpen();
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
    while (length > 0) {
      int room = (int) Math.min(length, Integer.MAX_VALUE - 8 - (long) size);
      ensureCapacity(size + room);
      System.arraycopy(bytes, offset, buffer, size, room);
      size += room;
      offset += room;
      length -= room;
      if (uploadId == null && size > threshold) {
        startMultipart();
      }
      while (uploadId != null && size >= partSize) {
        uploadPart(partSize);
      }
    }
  }

  private void ensureCapacity(int needed) {
    if (needed > buffer.length) {
      long grown = Math.max(needed, Math.min((long) buffer.length * 2, Integer.MAX_VALUE - 8));
      buffer = Arrays.copyOf(buffer, (int) grown);
    }
  }

  private void startMultipart() throws IOException {
    try {
      uploadId =
          store
              .clients()
              .retrying()
              .createMultipartUpload(
                  b ->
                      b.bucket(location.bucket())
                          .key(location.key())
                          .metadata(Map.of(ConditionalWriter.WRITE_ID, writeId)))
              .uploadId();
    } catch (SdkException e) {
      closed = true;
      throw S3Errors.translate("Starting a multipart upload of", location, e);
    }
  }

  private void uploadPart(int length) throws IOException {
    int number = parts.size() + 1;
    byte[] part = Arrays.copyOf(buffer, length);
    try {
      UploadPartResponse response =
          store
              .clients()
              .retrying()
              .uploadPart(
                  b ->
                      b.bucket(location.bucket())
                          .key(location.key())
                          .uploadId(uploadId)
                          .partNumber(number)
                          .contentLength((long) length),
                  RequestBody.fromBytes(part));
      parts.add(CompletedPart.builder().partNumber(number).eTag(response.eTag()).build());
    } catch (SdkException e) {
      IOException failure = S3Errors.translate("Uploading part " + number + " of", location, e);
      abort(failure);
      throw failure;
    }
    System.arraycopy(buffer, length, buffer, 0, size - length);
    size -= length;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (uploadId == null) {
        putSingle();
      } else {
        if (size > 0 || parts.isEmpty()) {
          uploadPart(size);
        }
        complete();
      }
    } finally {
      buffer = null;
    }
  }

  private void putSingle() throws IOException {
    byte[] content = size == buffer.length ? buffer : Arrays.copyOf(buffer, size);
    if (mode == Mode.IF_ABSENT) {
      store.writer().putIfAbsent(path, location, content, writeId);
      return;
    }
    if (mode == Mode.CHECK_ABSENT) {
      store.requireAbsent(path, location);
    }
    try {
      store
          .clients()
          .retrying()
          .putObject(
              b -> b.bucket(location.bucket()).key(location.key()), RequestBody.fromBytes(content));
    } catch (SdkException e) {
      throw uncertainOrFailure("Writing", e);
    }
  }

  private void complete() throws IOException {
    try {
      if (mode == Mode.IF_ABSENT) {
        store.writer().completeIfAbsent(path, location, uploadId, parts, writeId);
        return;
      }
      if (mode == Mode.CHECK_ABSENT) {
        store.requireAbsent(path, location);
      }
      try {
        store
            .clients()
            .retrying()
            .completeMultipartUpload(
                b ->
                    b.bucket(location.bucket())
                        .key(location.key())
                        .uploadId(uploadId)
                        .multipartUpload(u -> u.parts(parts)));
      } catch (SdkException e) {
        throw uncertainOrFailure("Completing the multipart upload of", e);
      }
    } catch (UncertainWriteException e) {
      throw e;
    } catch (IOException e) {
      abort(e);
      throw e;
    }
  }

  private IOException uncertainOrFailure(String operation, SdkException e) {
    if (S3Errors.mayHaveLanded(e)) {
      return new UncertainWriteException(
          path, operation + " failed after the request was sent (" + e.getMessage() + ")", e);
    }
    return S3Errors.translate(operation, location, e);
  }

  private void abort(IOException primary) {
    if (uploadId == null) {
      return;
    }
    try {
      store
          .clients()
          .retrying()
          .abortMultipartUpload(
              b -> b.bucket(location.bucket()).key(location.key()).uploadId(uploadId));
    } catch (SdkException e) {
      primary.addSuppressed(e);
    }
    uploadId = null;
    closed = true;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException("The stream writing " + path + " is closed");
    }
  }
}
