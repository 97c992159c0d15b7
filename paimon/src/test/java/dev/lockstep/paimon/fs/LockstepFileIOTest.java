package dev.lockstep.paimon.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.paimon.testing.S3Warehouse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.options.Options;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Paimon's FileIO contract on Lockstep's s3 FileIO, found by Paimon itself for {@code s3://}. */
class LockstepFileIOTest {

  private static S3ProxyServer server;
  private static Map<String, String> options;
  private static FileIO io;
  private static Path root;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    options = S3Warehouse.options(server);
    options.put("s3.multipart.threshold", "5 MiB");
    options.put("s3.multipart.part-size", "5 MiB");
    root = new Path(options.get("warehouse"));
    io = FileIO.get(root, CatalogContext.create(Options.fromMap(options)));
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void paimonPicksLockstepsFileIoForS3AndItIsAnObjectStore() {
    assertThat(io).isInstanceOf(LockstepFileIO.class);
    assertThat(io.isObjectStore()).isTrue();
  }

  @Test
  void tryToWriteAtomicCreatesOnceAndThenReportsTheFileThere() throws Exception {
    Path snapshot = new Path(root, "atomic/snapshot-1");
    assertThat(io.tryToWriteAtomic(snapshot, "first")).isTrue();
    assertThat(io.tryToWriteAtomic(snapshot, "second")).isFalse();
    assertThat(io.readFileUtf8(snapshot)).isEqualTo("first");
  }

  @Test
  void aLargeFileGoesUpInPartsAndReadsBackAtEverySeek() throws Exception {
    byte[] data = new byte[12 << 20];
    new Random(7).nextBytes(data);
    Path file = new Path(root, "large/data.bin");
    try (PositionOutputStream out = io.newOutputStream(file, false)) {
      out.write(data, 0, 1000);
      assertThat(out.getPos()).isEqualTo(1000);
      out.write(data, 1000, data.length - 1000);
      assertThat(out.getPos()).isEqualTo(data.length);
      assertThat(io.exists(file)).as("nothing visible before close").isFalse();
    }
    String etag =
        server
            .admin()
            .headObject(
                b -> b.bucket(S3ProxyServer.BUCKET).key(file.toUri().getPath().substring(1)))
            .eTag();
    assertThat(etag).as("a multipart upload's ETag").contains("-");
    assertThat(io.getFileSize(file)).isEqualTo(data.length);

    Random positions = new Random(11);
    try (SeekableInputStream in = io.newInputStream(file)) {
      for (int i = 0; i < 20; i++) {
        int position = positions.nextInt(data.length - 4096);
        in.seek(position);
        assertThat(in.getPos()).isEqualTo(position);
        byte[] read = new byte[4096];
        int done = 0;
        while (done < read.length) {
          done += in.read(read, done, read.length - done);
        }
        assertThat(read).isEqualTo(Arrays.copyOfRange(data, position, position + 4096));
      }
    }
    assertThatThrownBy(() -> io.newOutputStream(file, false))
        .isInstanceOf(FileAlreadyExistsException.class);
  }

  @Test
  void vectoredReadsOfRangesApartMatchTheBytesAndPositionedReadsStopAtTheEnd() throws Exception {
    byte[] data = new byte[3 << 20];
    new Random(5).nextBytes(data);
    Path file = new Path(root, "vectored/data.parquet");
    try (PositionOutputStream out = io.newOutputStream(file, false)) {
      out.write(data);
    }
    try (SeekableInputStream in = io.newInputStream(file)) {
      assertThat(in)
          .as("Paimon's Parquet and ORC readers check for it")
          .isInstanceOf(org.apache.paimon.fs.VectoredReadable.class);
      org.apache.paimon.fs.VectoredReadable vectored = (org.apache.paimon.fs.VectoredReadable) in;
      in.seek(123);
      // Three ranges more than 256 KiB apart (three positioned reads on Paimon's I/O threads),
      // the last one in the tail that opening read, and two that Paimon merges into one.
      long[] offsets = {4, 600_000, 610_000, 2_000_000, data.length - 5000};
      int[] lengths = {100_000, 9_000, 20_000, 700_000, 5000};
      List<org.apache.paimon.fs.FileRange> ranges = new java.util.ArrayList<>();
      for (int i = 0; i < offsets.length; i++) {
        ranges.add(org.apache.paimon.fs.FileRange.createFileRange(offsets[i], lengths[i]));
      }
      vectored.readVectored(ranges);
      for (int i = 0; i < offsets.length; i++) {
        assertThat(ranges.get(i).getData().get(30, java.util.concurrent.TimeUnit.SECONDS))
            .isEqualTo(Arrays.copyOfRange(data, (int) offsets[i], (int) offsets[i] + lengths[i]));
      }
      assertThat(in.getPos()).as("positioned reads do not move the stream").isEqualTo(123);
      assertThat(in.read()).isEqualTo(data[123] & 0xff);

      byte[] buffer = new byte[100];
      assertThat(vectored.pread(data.length - 40, buffer, 0, 100)).isEqualTo(40);
      assertThat(Arrays.copyOf(buffer, 40))
          .isEqualTo(Arrays.copyOfRange(data, data.length - 40, data.length));
      assertThat(vectored.pread(data.length, buffer, 0, 100)).isEqualTo(-1);
      assertThatThrownBy(() -> vectored.preadFully(data.length - 10, buffer, 0, 20))
          .isInstanceOf(java.io.EOFException.class);
      in.seek(data.length);
      assertThat(in.read()).as("past the end").isEqualTo(-1);
      in.seek(10); // backwards
      assertThat(in.read()).isEqualTo(data[10] & 0xff);
    }
  }

  @Test
  void listStatusRenameDeleteAndOverwriteKeepPaimonsContract() throws Exception {
    Path dir = new Path(root, "ops");
    io.writeFile(new Path(dir, "a"), "a", false);
    io.writeFile(new Path(dir, "sub/b"), "b", false);
    FileStatus[] children = io.listStatus(dir);
    assertThat(Arrays.stream(children).map(s -> s.getPath().getName() + (s.isDir() ? "/" : "")))
        .containsExactlyInAnyOrder("a", "sub/");
    assertThat(io.getFileStatus(new Path(dir, "a")).getLen()).isEqualTo(1);
    assertThat(io.getFileStatus(dir).isDir()).isTrue();
    assertThat(io.listStatus(new Path(root, "missing"))).isEmpty();
    assertThatThrownBy(() -> io.getFileStatus(new Path(root, "missing")))
        .isInstanceOf(FileNotFoundException.class);

    assertThat(io.rename(new Path(dir, "a"), new Path(dir, "sub/b"))).as("target exists").isFalse();
    assertThat(io.rename(new Path(dir, "nope"), new Path(dir, "c"))).as("no source").isFalse();
    assertThat(io.rename(new Path(dir, "a"), new Path(dir, "c"))).isTrue();
    assertThat(io.exists(new Path(dir, "a"))).isFalse();
    assertThat(io.readFileUtf8(new Path(dir, "c"))).isEqualTo("a");
    assertThat(io.rename(new Path(dir, "sub"), new Path(dir, "moved"))).isTrue();
    assertThat(io.readFileUtf8(new Path(dir, "moved/b"))).isEqualTo("b");
    assertThat(io.exists(new Path(dir, "sub"))).isFalse();

    Path hint = new Path(dir, "LATEST");
    io.overwriteHintFile(hint, "1");
    io.overwriteFileUtf8(hint, "2");
    assertThat(io.readOverwrittenFileUtf8(hint)).contains("2");
    assertThat(io.readOverwrittenFileUtf8(new Path(dir, "EARLIEST"))).isEmpty();

    assertThat(io.delete(new Path(dir, "c"), false)).isTrue();
    assertThat(io.delete(new Path(dir, "c"), false)).isFalse();
    assertThat(io.delete(dir, true)).isTrue();
    assertThat(io.exists(dir)).isFalse();
  }

  @Test
  void aJavaSerializedCopyWorksOnTheSameBucket() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(io);
    }
    FileIO copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (FileIO) in.readObject();
    }
    Path file = new Path(root, "serialized/snapshot-1");
    assertThat(copy.tryToWriteAtomic(file, "x")).isTrue();
    assertThat(
            new String(
                io.readFileUtf8(file).getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
        .isEqualTo("x");
    assertThat(io.tryToWriteAtomic(file, "y")).isFalse();
  }
}
