package dev.lockstep.fs.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileIOTest {

  @TempDir java.nio.file.Path dir;
  private final LocalFileIO io = new LocalFileIO();

  private Path path(String name) {
    return Path.of(dir.toString()).child(name);
  }

  private void write(Path path, String text, boolean overwrite) throws IOException {
    try (OutputStream out = io.newOutputStream(path, overwrite)) {
      out.write(text.getBytes(UTF_8));
    }
  }

  private String read(Path path) throws IOException {
    try (SeekableInputStream in = io.newInputStream(path)) {
      return new String(in.readAllBytes(), UTF_8);
    }
  }

  @Test
  void writesAndReadsBackWithParentsCreated() throws IOException {
    Path file = path("a/b/c.txt");

    write(file, "hello", false);

    assertThat(read(file)).isEqualTo("hello");
    assertThat(io.exists(file)).isTrue();
    FileStatus status = io.getStatus(file);
    assertThat(status.length()).isEqualTo(5);
    assertThat(status.directory()).isFalse();
    assertThat(io.getStatus(file.parent()).directory()).isTrue();
  }

  @Test
  void positionedReadsDoNotMoveTheStream() throws IOException {
    Path file = path("f");
    write(file, "0123456789", false);

    try (SeekableInputStream in = io.newInputStream(file)) {
      byte[] buffer = new byte[3];
      in.readFully(6, buffer, 0, 3);
      assertThat(new String(buffer, UTF_8)).isEqualTo("678");
      assertThat(in.position()).isZero();
      in.seek(4);
      assertThat((char) in.read()).isEqualTo('4');
      assertThatThrownBy(() -> in.readFully(8, new byte[5], 0, 5))
          .isInstanceOf(java.io.EOFException.class);
    }
  }

  @Test
  void fileUrisAndBarePathsNameTheSameFile() throws IOException {
    write(path("same"), "x", false);

    assertThat(read(Path.of("file://" + dir + "/same"))).isEqualTo("x");
    assertThat(read(Path.of("file:" + dir + "/same"))).isEqualTo("x");
    assertThatThrownBy(() -> io.exists(Path.of("file://somehost" + dir + "/same")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file:///");
  }

  @Test
  void overwriteFalseRefusesAnExistingFileAndOverwriteTrueReplacesIt() throws IOException {
    Path file = path("f");
    write(file, "first", false);

    assertThatThrownBy(() -> write(file, "second", false))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(file)).isEqualTo("first");

    write(file, "third", true);
    assertThat(read(file)).isEqualTo("third");
  }

  @Test
  void overwriteFalseLosesToAWriterThatClosedFirstEvenIfBothOpenedOnAnEmptyPath()
      throws IOException {
    Path file = path("f");
    OutputStream slow = io.newOutputStream(file, false);
    slow.write("slow".getBytes(UTF_8));
    write(file, "fast", false);

    assertThatThrownBy(slow::close).isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(file)).isEqualTo("fast");
    assertThat(Files.list(dir).map(p -> p.getFileName().toString())).containsExactly("f");
  }

  @Test
  void nothingIsVisibleBeforeClose() throws IOException {
    Path file = path("f");

    try (OutputStream out = io.newOutputStream(file, false)) {
      out.write("partial".getBytes(UTF_8));
      assertThat(io.exists(file)).isFalse();
      assertThat(io.list(Path.of(dir.toString())).stream().map(s -> s.path().name()))
          .noneMatch("f"::equals);
    }
    assertThat(read(file)).isEqualTo("partial");
  }

  @Test
  void aWriteThatFailedPublishesNothingWhenTheStreamIsClosed() throws IOException {
    Path file = path("torn");

    assertThatThrownBy(
            () -> {
              try (OutputStream out = io.newOutputStream(file, false)) {
                out.write("half".getBytes(UTF_8));
                Thread.currentThread().interrupt();
                out.write("rest".getBytes(UTF_8)); // the interrupted channel fails this write
              }
            })
        .isInstanceOf(IOException.class);
    assertThat(Thread.interrupted()).isTrue();

    assertThat(io.exists(file)).isFalse();
    assertThat(Files.list(dir)).isEmpty();
  }

  @Test
  void missingFilesRaiseFileNotFound() {
    Path missing = path("missing");

    assertThatThrownBy(() -> io.newInputStream(missing)).isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> io.getStatus(missing)).isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> io.newInputStream(Path.of(dir.toString())))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining("directory");
    assertThatThrownBy(() -> io.renameAtomically(missing, path("t")))
        .isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void listsDirectChildrenAndAMissingDirectoryAsEmpty() throws IOException {
    write(path("d/one"), "1", false);
    write(path("d/sub/two"), "22", false);

    assertThat(io.list(path("d")))
        .extracting(s -> s.path().name(), FileStatus::directory)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("one", false),
            org.assertj.core.groups.Tuple.tuple("sub", true));
    assertThat(io.list(path("nothing-here"))).isEmpty();
    assertThatThrownBy(() -> io.list(path("d/one")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is a file");
  }

  @Test
  void deletesFilesAndDirectoriesOnlyRecursivelyWhenAsked() throws IOException {
    write(path("d/one"), "1", false);
    write(path("d/sub/two"), "2", false);

    assertThat(io.delete(path("d/one"), false)).isTrue();
    assertThat(io.delete(path("d/one"), false)).isFalse();
    assertThatThrownBy(() -> io.delete(path("d"), false)).hasMessageContaining("recursive=false");
    assertThat(io.delete(path("d"), true)).isTrue();
    assertThat(io.exists(path("d"))).isFalse();
    assertThat(io.mkdirs(path("x/y"))).isTrue();
    assertThat(io.getStatus(path("x/y")).directory()).isTrue();
  }

  @Test
  void atomicCreateAndRenameNeverReplaceAnExistingTarget() throws IOException {
    Path target = path("snapshot-1");
    io.createAtomically(target, "ours".getBytes(UTF_8));

    assertThatThrownBy(() -> io.createAtomically(target, "theirs".getBytes(UTF_8)))
        .isInstanceOf(FileAlreadyExistsException.class);
    Path source = path("source");
    write(source, "renamed", false);
    assertThatThrownBy(() -> io.renameAtomically(source, target))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(target)).isEqualTo("ours");
    assertThat(read(source)).isEqualTo("renamed");

    io.renameAtomically(source, path("snapshot-2"));
    assertThat(io.exists(source)).isFalse();
    assertThat(read(path("snapshot-2"))).isEqualTo("renamed");
    assertThat(Files.list(dir).map(p -> p.getFileName().toString()))
        .containsExactlyInAnyOrder("snapshot-1", "snapshot-2");
  }
}
