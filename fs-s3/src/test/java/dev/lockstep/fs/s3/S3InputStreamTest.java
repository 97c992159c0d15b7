package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which GETs a read sends, seen on the wire ({@link LostAnswerProxy} with no fault armed records
 * every request between the store and s3proxy): opening reads the object's last {@value
 * S3InputStream#TAIL} bytes, a columnar reader's footer comes from them, and the column chunks cost
 * one more ranged GET that ends where the tail starts.
 */
class S3InputStreamTest {

  private static final int TAIL = S3InputStream.TAIL;

  private static S3ProxyServer server;
  private static LostAnswerProxy wire;
  private FileIO store;
  private Path root;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.start();
    wire = new LostAnswerProxy(server.port());
  }

  @AfterAll
  static void stopServer() throws Exception {
    wire.close();
    server.close();
  }

  @BeforeEach
  void open() throws Exception {
    root = server.freshRoot();
    store = FileIODiscovery.open(root, S3ProxyServer.options(wire.endpoint()));
  }

  @AfterEach
  void close() throws Exception {
    store.close();
  }

  @Test
  void aParquetReadersFooterAndColumnChunksCostTwoGets() throws Exception {
    byte[] content = S3FileIOTest.randomBytes(1 << 20);
    Path file = write("data.parquet", content);
    int footer = 3000;
    List<String> gets;
    try (SeekableInputStream in = store.newInputStream(file)) {
      in.seek(content.length - 8); // footer length + magic
      assertThat(in.readNBytes(8)).isEqualTo(slice(content, content.length - 8, 8));
      in.seek(content.length - 8 - footer); // the footer
      assertThat(in.readNBytes(footer))
          .isEqualTo(slice(content, content.length - 8 - footer, footer));
      in.seek(4); // the column chunks, up to the footer
      byte[] chunks = new byte[content.length - 12 - footer];
      readFully(in, chunks);
      assertThat(chunks).isEqualTo(slice(content, 4, chunks.length));
      gets = getsOf(file);
    }
    assertThat(gets)
        .containsExactly(
            "GET Range: bytes=-" + TAIL, "GET Range: bytes=4-" + (content.length - TAIL - 1));
  }

  @Test
  void anObjectShorterThanTheTailIsReadWithOneGetWhateverTheSeeks() throws Exception {
    byte[] content = S3FileIOTest.randomBytes(5000);
    Path file = write("small.avro", content);
    try (SeekableInputStream in = store.newInputStream(file)) {
      assertThat(in.readAllBytes()).isEqualTo(content);
      assertThat(in.read()).as("past the end").isEqualTo(-1);
      in.seek(100);
      assertThat(in.readNBytes(10)).isEqualTo(slice(content, 100, 10));
      byte[] positioned = new byte[50];
      in.readFully(4900, positioned, 0, 50);
      assertThat(positioned).isEqualTo(slice(content, 4900, 50));
      assertThatThrownBy(() -> in.readFully(4990, new byte[20], 0, 20))
          .isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> in.seek(5001)).isInstanceOf(EOFException.class);
    }
    assertThat(getsOf(file)).containsExactly("GET Range: bytes=-" + TAIL);
  }

  @Test
  void sequentialReadsFromTheStartStreamUpToTheTailAndBackwardSeeksReopen() throws Exception {
    byte[] content = S3FileIOTest.randomBytes(300_000);
    Path file = write("seq.bin", content);
    try (SeekableInputStream in = store.newInputStream(file)) {
      assertThat(in.readAllBytes()).isEqualTo(content);
      in.seek(10); // backwards, below the tail
      assertThat(in.read()).isEqualTo(content[10] & 0xff);
      in.seek(content.length - 5); // in the tail
      assertThat(in.readNBytes(10)).isEqualTo(slice(content, content.length - 5, 5));
      byte[] across = new byte[1000];
      in.readFully(content.length - TAIL - 500, across, 0, 1000);
      assertThat(across).isEqualTo(slice(content, content.length - TAIL - 500, 1000));
      assertThat(in.position()).isEqualTo(content.length);
    }
    int below = content.length - TAIL - 1;
    assertThat(getsOf(file))
        .containsExactly(
            "GET Range: bytes=-" + TAIL,
            "GET Range: bytes=0-" + below,
            "GET Range: bytes=10-" + below,
            "GET Range: bytes=" + (content.length - TAIL - 500) + "-" + below);
  }

  @Test
  void anEmptyObjectReadsNothingAndAMissingOneFailsAtOpen() throws Exception {
    Path file = write("empty", new byte[0]);
    try (SeekableInputStream in = store.newInputStream(file)) {
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.readAllBytes()).isEmpty();
      in.seek(0);
      assertThatThrownBy(() -> in.seek(1)).isInstanceOf(EOFException.class);
    }
    assertThatThrownBy(() -> store.newInputStream(root.child("missing")))
        .isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void anObjectReplacedWhileBeingReadFailsInsteadOfMixingVersions() throws Exception {
    byte[] first = S3FileIOTest.randomBytes(200_000);
    Path file = write("replaced.bin", first);
    try (SeekableInputStream in = store.newInputStream(file)) {
      try (OutputStream out = store.newOutputStream(file, true)) {
        out.write(S3FileIOTest.randomBytes(200_001));
      }
      in.seek(first.length - 10);
      assertThat(in.readNBytes(10))
          .as("the tail, read at open, is the old version's")
          .isEqualTo(slice(first, first.length - 10, 10));
      in.seek(0);
      assertThatThrownBy(() -> in.readNBytes(10)).hasMessageContaining("was replaced");
    }
  }

  private Path write(String name, byte[] content) throws IOException {
    Path file = root.child(name);
    try (OutputStream out = store.newOutputStream(file, false)) {
      out.write(content);
    }
    return file;
  }

  /** The GETs of {@code file} sent so far, with their ranges. */
  private static List<String> getsOf(Path file) {
    String key = " /" + S3ProxyServer.BUCKET + "/" + S3Location.of(file).key();
    return wire.requests().stream()
        .filter(r -> r.startsWith("GET" + key + " ") || r.equals("GET" + key))
        .map(r -> r.replace(key, ""))
        .toList();
  }

  private static void readFully(SeekableInputStream in, byte[] into) throws IOException {
    int done = 0;
    while (done < into.length) {
      int n = in.read(into, done, into.length - done);
      assertThat(n).isPositive();
      done += n;
    }
  }

  private static byte[] slice(byte[] content, int from, int count) {
    return Arrays.copyOfRange(content, from, from + count);
  }
}
