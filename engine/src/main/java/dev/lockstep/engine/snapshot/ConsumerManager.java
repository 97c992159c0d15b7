package dev.lockstep.engine.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The consumers of a table, as Apache Paimon lays them out: {@code consumer/consumer-<id>}, a JSON
 * object {@code {"nextSnapshot": N}}, the next snapshot the consumer (a stream reader with {@code
 * consumer-id}) reads. Snapshot expiration keeps every snapshot from the smallest {@code
 * nextSnapshot} of the live consumers on; a consumer whose file was last written more than {@code
 * consumer.expiration-time} ago is not live (and its file is deleted by expiration).
 *
 * <p>A consumer file is overwritten in place by its one reader; a reader that crashes mid-write
 * leaves a file that fails to parse, which counts as the consumer's start over (an error naming the
 * file, never a silent skip).
 */
public final class ConsumerManager {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "consumer-";

  private final FileIO fileIO;
  private final Path directory;

  /**
   * @param tablePath the table's directory; consumers live in its {@code consumer/}
   */
  public ConsumerManager(FileIO fileIO, Path tablePath) {
    this.fileIO = fileIO;
    this.directory = tablePath.child("consumer");
  }

  private Path path(String id) {
    return directory.child(PREFIX + id);
  }

  /** The next snapshot consumer {@code id} reads; empty when it is not registered. */
  public OptionalLong nextSnapshot(String id) throws IOException {
    Path path = path(id);
    byte[] bytes;
    try (InputStream in = fileIO.newInputStream(path)) {
      bytes = in.readAllBytes();
    } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
      return OptionalLong.empty();
    }
    try {
      JsonNode node = JSON.readTree(bytes);
      if (node == null || !node.has("nextSnapshot")) {
        throw new IOException("no nextSnapshot");
      }
      return OptionalLong.of(node.get("nextSnapshot").asLong());
    } catch (IOException e) {
      throw new IOException(
          "Consumer file "
              + path
              + " is not a consumer position ("
              + new String(bytes, StandardCharsets.UTF_8).strip()
              + "); delete it to start that consumer over, or write {\"nextSnapshot\": N}.",
          e);
    }
  }

  /** Records that consumer {@code id} reads snapshot {@code nextSnapshot} next. */
  public void record(String id, long nextSnapshot) throws IOException {
    fileIO.mkdirs(directory);
    try (OutputStream out = fileIO.newOutputStream(path(id), true)) {
      out.write(("{\"nextSnapshot\":" + nextSnapshot + "}").getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Removes consumer {@code id}; true when it existed. */
  public boolean delete(String id) throws IOException {
    return fileIO.delete(path(id), false);
  }

  /** Every consumer and its next snapshot, by id. */
  public Map<String, Long> consumers() throws IOException {
    Map<String, Long> out = new TreeMap<>();
    for (FileStatus status : list()) {
      String name = status.path().name();
      String id = name.substring(PREFIX.length());
      nextSnapshot(id).ifPresent(n -> out.put(id, n));
    }
    return out;
  }

  /**
   * The smallest next snapshot of the consumers updated within {@code expiration} ({@code null}:
   * every consumer), empty when there is none. Consumers older than that are deleted when {@code
   * deleteExpired}.
   */
  public OptionalLong minNextSnapshot(Duration expiration, long nowMillis, boolean deleteExpired)
      throws IOException {
    long min = Long.MAX_VALUE;
    for (FileStatus status : list()) {
      String id = status.path().name().substring(PREFIX.length());
      if (expiration != null
          && status.modificationTimeMillis() < nowMillis - expiration.toMillis()) {
        if (deleteExpired) {
          fileIO.delete(status.path(), false);
        }
        continue;
      }
      Optional<Long> next = Optional.empty();
      OptionalLong read = nextSnapshot(id);
      if (read.isPresent()) {
        next = Optional.of(read.getAsLong());
      }
      if (next.isPresent()) {
        min = Math.min(min, next.get());
      }
    }
    return min == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(min);
  }

  private java.util.List<FileStatus> list() throws IOException {
    if (!fileIO.exists(directory)) {
      return java.util.List.of();
    }
    return fileIO.list(directory).stream()
        .filter(s -> !s.directory() && s.path().name().startsWith(PREFIX))
        .toList();
  }
}
