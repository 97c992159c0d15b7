package dev.lockstep.fs.oss;

import com.aliyun.oss.model.PartETag;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.conditional.ObjectKey;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Buffers bytes in memory and publishes them on {@link #close()}; nothing is visible before.
 *
 * <ol>
 *   <li>Up to {@value OssOptions#MULTIPART_THRESHOLD} bytes: one PutObject on close.
 *   <li>Beyond it: InitiateMultipartUpload, then one UploadPart per {@value OssOptions#PART_SIZE}
 *       bytes as they fill, and on close the last part and CompleteMultipartUpload, which
 *       publishes.
 *   <li>With {@code forbidOverwrite} the publishing request carries {@code x-oss-forbid-overwrite:
 *       true}: an existing object fails the close with {@link
 *       java.nio.file.FileAlreadyExistsException}.
 *   <li>After a failed close: nothing of ours is visible, and the multipart upload is aborted;
 *       except after {@link UncertainWriteException}, which leaves everything as it is.
 * </ol>
 */
final class OssOutputStream extends OutputStream {

  private final OssPublisher publisher;
  private final ObjectKey key;
  private final Path path;
  private final boolean forbidOverwrite;
  private final long threshold;
  private final int partSize;
  private final String writeId = UUID.randomUUID().toString();
  private final List<PartETag> parts = new ArrayList<>();
  private byte[] buffer = new byte[1024];
  private int size;
  private String uploadId;
  private boolean closed;

  OssOutputStream(
      OssPublisher publisher,
      ObjectKey key,
      Path path,
      boolean forbidOverwrite,
      OssOptions options) {
    this.publisher = publisher;
    this.key = key;
    this.path = path;
    this.forbidOverwrite = forbidOverwrite;
    this.threshold = options.multipartThreshold();
    this.partSize = Math.toIntExact(Math.min(options.partSize(), Integer.MAX_VALUE - 8));
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    if (closed) {
      throw new IOException("The stream to " + path + " is closed");
    }
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    while (len > 0) {
      int limit = uploadId == null ? (int) Math.max(threshold + 1, partSize) : partSize;
      int n = Math.min(len, limit - size);
      append(b, off, n);
      off += n;
      len -= n;
      if (uploadId == null && size > threshold) {
        try {
          uploadId = publisher.initiate(key, path, forbidOverwrite, writeId);
        } catch (IOException e) {
          closed = true;
          throw e;
        }
      }
      if (uploadId != null) {
        while (size >= partSize) {
          uploadFirstPart();
        }
      }
    }
  }

  private void uploadFirstPart() throws IOException {
    try {
      parts.add(publisher.uploadPart(key, path, uploadId, parts.size() + 1, buffer, partSize));
    } catch (IOException e) {
      closed = true;
      publisher.abort(key, uploadId, e);
      throw e;
    }
    System.arraycopy(buffer, partSize, buffer, 0, size - partSize);
    size -= partSize;
  }

  /** Copies {@code n} bytes of {@code b} from {@code off} to the end of the buffer. */
  private void append(byte[] b, int off, int n) {
    ensureCapacity(size + n);
    System.arraycopy(b, off, buffer, size, n);
    size += n;
  }

  private void ensureCapacity(int needed) {
    if (needed > buffer.length) {
      buffer =
          Arrays.copyOf(
              buffer, Math.max(needed, (int) Math.min(Integer.MAX_VALUE - 8, buffer.length * 2L)));
    }
  }

  /** Publishes, as the class javadoc says. Idempotent. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    if (uploadId == null) {
      publisher.putObject(key, path, buffer, size, forbidOverwrite);
      buffer = null;
      return;
    }
    try {
      if (size > 0 || parts.isEmpty()) {
        parts.add(publisher.uploadPart(key, path, uploadId, parts.size() + 1, buffer, size));
      }
      buffer = null;
      publisher.complete(key, path, uploadId, parts, forbidOverwrite, writeId);
    } catch (UncertainWriteException e) {
      throw e;
    } catch (IOException e) {
      publisher.abort(key, uploadId, e);
      throw e;
    }
  }
}
