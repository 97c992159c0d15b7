package dev.lockstep.fs.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.Path;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An interrupted write leaves nothing behind: not the file, and not its hidden temporary file
 * ({@code .<name>.<uuid>.inprogress}), even when the writer never closes the stream after the
 * failure (as Parquet's writer does not). Found by the CLI's interrupted compactions (issue 25).
 */
class LocalFileIOInterruptTest {

  @TempDir java.nio.file.Path dir;
  private final LocalFileIO io = new LocalFileIO();

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  private Path path(String name) {
    return Path.of(dir.toString()).child(name);
  }

  /** Every file in the directory, hidden ones included. */
  private List<String> listing() throws IOException {
    try (Stream<java.nio.file.Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void anInterruptedWriteDeletesItsTemporaryFileBeforeTheStreamIsClosed() throws IOException {
    OutputStream out = io.newOutputStream(path("data.parquet"), false);
    out.write(new byte[1024]);
    assertThat(listing()).singleElement().asString().endsWith(LocalFileIO.TEMP_SUFFIX);

    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> out.write(new byte[1024]))
        .isInstanceOf(ClosedByInterruptException.class);
    Thread.interrupted();

    assertThat(listing()).as("nothing left while the stream is still open").isEmpty();
    assertThatThrownBy(out::close).isInstanceOf(IOException.class).hasMessageContaining("Nothing");
    assertThat(listing()).isEmpty();
  }

  @Test
  void aWriterInterruptedByAnotherThreadAndNeverClosedLeavesNoFile() throws Exception {
    CountDownLatch writing = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread writer =
        new Thread(
            () -> {
              try {
                // Never closed, as a writer abandons a stream whose write failed.
                OutputStream out = io.newOutputStream(path("big.parquet"), false);
                byte[] chunk = new byte[64 * 1024];
                while (true) {
                  out.write(chunk);
                  writing.countDown();
                }
              } catch (IOException | RuntimeException e) {
                failure.set(e);
              }
            });
    writer.start();
    assertThat(writing.await(30, TimeUnit.SECONDS)).isTrue();
    writer.interrupt();
    writer.join(TimeUnit.SECONDS.toMillis(30));

    assertThat(writer.isAlive()).isFalse();
    assertThat(failure.get()).isInstanceOf(ClosedByInterruptException.class);
    assertThat(listing()).as("no temporary file left behind").isEmpty();
  }

  @Test
  void anInterruptedAtomicCreateLeavesNoFile() throws IOException {
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> io.createAtomically(path("snapshot-1"), new byte[4096]))
        .isInstanceOf(IOException.class);
    Thread.interrupted();
    assertThat(listing()).isEmpty();
  }
}
