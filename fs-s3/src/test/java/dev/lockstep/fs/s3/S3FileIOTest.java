package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import java.io.FileNotFoundException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The base store contract on s3proxy: reads, seeks, writes, multipart, status, list, delete. */
class S3FileIOTest {

  private static S3ProxyServer server;
  private FileIO store;
  private Path root;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @BeforeEach
  void open() throws Exception {
    root = server.freshRoot();
    store =
        server.open(
            root,
            Map.of(S3Options.MULTIPART_THRESHOLD, "5 MiB", S3Options.MULTIPART_PART_SIZE, "5 MiB"));
  }

  @AfterEach
  void close() throws Exception {
    store.close();
  }

  @Test
  void writtenBytesReadBackWhole() throws Exception {
    Path file = root.child("a/b/file.txt");
    write(file, "hello s3".getBytes(StandardCharsets.UTF_8), false);
    assertThat(read(file)).isEqualTo("hello s3".getBytes(StandardCharsets.UTF_8));
    FileStatus status = store.getStatus(file);
    assertThat(status.length()).isEqualTo(8);
    assertThat(status.directory()).isFalse();
    assertThat(status.modificationTimeMillis()).isPositive();
  }

  @Test
  void missingFileIsFileNotFound() {
    assertThatThrownBy(() -> store.newInputStream(root.child("nope")))
        .isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> store.getStatus(root.child("nope")))
        .isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void overwriteFalseRefusesAnExistingFileAndOverwriteTrueReplacesIt() throws Exception {
    Path file = root.child("f");
    write(file, new byte[] {1}, false);
    assertThatThrownBy(() -> store.newOutputStream(file, false))
        .isInstanceOf(FileAlreadyExistsException.class);
    write(file, new byte[] {2, 3}, true);
    assertThat(read(file)).containsExactly(2, 3);
  }

  @Test
  void nothingIsVisibleBeforeCloseEvenAfterMultipartParts() throws Exception {
    byte[] content = randomBytes(12 << 20);
    Path file = root.child("big.bin");
    try (OutputStream out = store.newOutputStream(file, false)) {
      out.write(content, 0, 11 << 20);
      assertThat(store.exists(file)).as("visible before close").isFalse();
      out.write(content, 11 << 20, content.length - (11 << 20));
    }
    assertThat(read(file)).isEqualTo(content);
  }

  @Test
  void seeksAndPositionedReadsUseRanges() throws Exception {
    byte[] content = randomBytes(1 << 20);
    Path file = root.child("seek.bin");
    write(file, content, false);
    try (SeekableInputStream in = store.newInputStream(file)) {
      assertThat(in.read()).isEqualTo(content[0] & 0xff);
      in.seek(700_000);
      assertThat(in.position()).isEqualTo(700_000);
      byte[] chunk = in.readNBytes(1000);
      assertThat(chunk).isEqualTo(java.util.Arrays.copyOfRange(content, 700_000, 701_000));
      in.seek(10);
      assertThat(in.read()).isEqualTo(content[10] & 0xff);
      in.seek(11 + 100_000);
      assertThat(in.read()).isEqualTo(content[11 + 100_000] & 0xff);
      byte[] positioned = new byte[500];
      in.readFully(900_000, positioned, 0, 500);
      assertThat(positioned).isEqualTo(java.util.Arrays.copyOfRange(content, 900_000, 900_500));
      assertThat(in.position()).as("positioned reads do not move").isEqualTo(11 + 100_001);
      assertThatThrownBy(() -> in.readFully(content.length - 10, new byte[20], 0, 20))
          .isInstanceOf(java.io.EOFException.class);
      in.seek(content.length);
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void directoriesArePrefixesAndMarkers() throws Exception {
    write(root.child("d/x"), new byte[] {1}, false);
    assertThat(store.getStatus(root.child("d")).directory()).isTrue();
    assertThat(store.mkdirs(root.child("empty"))).isTrue();
    assertThat(store.getStatus(root.child("empty")).directory()).isTrue();
    assertThat(store.list(root.child("empty"))).isEmpty();
    List<FileStatus> children = store.list(root);
    assertThat(children)
        .extracting(s -> s.path().name() + (s.directory() ? "/" : ""))
        .containsExactlyInAnyOrder("d/", "empty/");
    assertThat(store.list(root.child("missing"))).isEmpty();
    assertThatThrownBy(() -> store.delete(root.child("d"), false))
        .isInstanceOf(DirectoryNotEmptyException.class);
    assertThat(store.delete(root.child("empty"), false)).isTrue();
    assertThat(store.exists(root.child("empty"))).isFalse();
    assertThat(store.delete(root.child("d/x"), false)).isTrue();
    assertThat(store.delete(root.child("d/x"), false)).isFalse();
  }

  @Test
  void listingAndRecursiveDeleteCrossPageAndBatchBoundaries() throws Exception {
    int count = 25;
    S3Options options = S3Options.from(server.options());
    try (S3FileIO paged = new S3FileIO(options, new S3Clients(options), 10)) {
      Path dir = root.child("many");
      for (int i = 0; i < count; i++) {
        write(dir.child(String.format("f-%04d", i)), new byte[] {7}, true);
      }
      write(dir.child("sub/deeper"), new byte[] {1}, true);
      List<FileStatus> listed = paged.list(dir);
      assertThat(listed).as("3 pages of 10").hasSize(count + 1);
      assertThat(listed)
          .filteredOn(FileStatus::directory)
          .extracting(s -> s.path().name())
          .containsExactly("sub");
      assertThat(listed)
          .filteredOn(s -> !s.directory())
          .extracting(s -> s.path().name())
          .doesNotHaveDuplicates()
          .hasSize(count);
      assertThat(paged.delete(dir, true)).as("3 delete batches of at most 10").isTrue();
      assertThat(store.list(dir)).isEmpty();
      assertThat(store.exists(dir)).isFalse();
      assertThat(paged.delete(dir, true)).isFalse();
    }
  }

  private void write(Path file, byte[] content, boolean overwrite) throws Exception {
    try (OutputStream out = store.newOutputStream(file, overwrite)) {
      out.write(content);
    }
  }

  private byte[] read(Path file) throws Exception {
    try (SeekableInputStream in = store.newInputStream(file)) {
      return in.readAllBytes();
    }
  }

  static byte[] randomBytes(int size) {
    byte[] bytes = new byte[size];
    new Random(size).nextBytes(bytes);
    return bytes;
  }
}
