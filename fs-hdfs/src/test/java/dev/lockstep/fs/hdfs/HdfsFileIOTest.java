package dev.lockstep.fs.hdfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The HDFS store against a real MiniDFSCluster. */
class HdfsFileIOTest {

  private static MiniHdfs hdfs;
  private static FileIO store;

  @BeforeAll
  static void start() throws IOException {
    hdfs = MiniHdfs.shared();
    store = hdfs.open();
  }

  @AfterAll
  static void stop() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  private static void write(Path path, String text) throws IOException {
    try (OutputStream out = store.newOutputStream(path, false)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String read(Path path) throws IOException {
    try (InputStream in = store.newInputStream(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void hdfsDeclaresAtomicRenameButNotAtomicCreate() {
    assertThat(store).isInstanceOf(SupportsAtomicRename.class);
    assertThat(store).isNotInstanceOf(SupportsAtomicCreate.class);
  }

  @Test
  void otherHadoopSchemesDeclareNoRenameUnlessTheUserVouches() throws IOException {
    HadoopFileIOLoader loader = new HadoopFileIOLoader();
    try (FileIO plain = loader.load(Path.of("file:///tmp"), Map.of());
        FileIO vouched =
            loader.load(Path.of("file:///tmp"), Map.of(HadoopOptions.ATOMIC_RENAME, "true"))) {
      assertThat(plain).isNotInstanceOf(SupportsAtomicRename.class);
      assertThat(vouched).isInstanceOf(SupportsAtomicRename.class);
    }
  }

  @Test
  void createWithoutOverwriteShowsAPartlyWrittenFileToReaders() throws IOException {
    // The evidence for not declaring SupportsAtomicCreate: the NameNode decides
    // create(overwrite=false) atomically, but readers see the file before it is whole.
    Path file = hdfs.root("torn/snapshot-1");
    HadoopFileIO hadoop = (HadoopFileIO) store;
    try (org.apache.hadoop.fs.FSDataOutputStream out =
        hadoop.fileSystem().create(HadoopFileIO.toHadoop(file), false)) {
      out.write(new byte[1000]);
      out.hflush();
      assertThat(store.exists(file)).isTrue();
      try (InputStream in = store.newInputStream(file)) {
        assertThat(in.readAllBytes()).hasSize(1000);
      }
      out.write(new byte[1000]);
    }
    assertThat(store.getStatus(file).length()).isEqualTo(2000);
  }

  @Test
  void readsWritesListsAndDeletes() throws IOException {
    Path dir = hdfs.root("basics");
    write(dir.child("a"), "alpha");
    write(dir.child("sub/b"), "beta");
    assertThat(read(dir.child("a"))).isEqualTo("alpha");
    assertThat(store.getStatus(dir.child("a")).length()).isEqualTo(5);
    List<String> names = new ArrayList<>();
    for (FileStatus status : store.list(dir)) {
      names.add(status.path().name() + (status.directory() ? "/" : ""));
    }
    assertThat(names).containsExactlyInAnyOrder("a", "sub/");
    assertThat(store.delete(dir.child("a"), false)).isTrue();
    assertThat(store.exists(dir.child("a"))).isFalse();
    assertThat(store.delete(dir.child("a"), false)).isFalse();
    assertThatThrownBy(() -> store.delete(dir, false))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not empty");
    assertThat(store.delete(dir, true)).isTrue();
    assertThat(store.list(dir)).isEmpty();
  }

  @Test
  void missingFilesAndExistingTargetsRaiseTheContractExceptions() throws IOException {
    Path dir = hdfs.root("errors");
    assertThatThrownBy(() -> store.newInputStream(dir.child("missing")))
        .isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> store.getStatus(dir.child("missing")))
        .isInstanceOf(FileNotFoundException.class);
    write(dir.child("x"), "one");
    assertThatThrownBy(() -> write(dir.child("x"), "two"))
        .isInstanceOf(FileAlreadyExistsException.class);
    try (OutputStream out = store.newOutputStream(dir.child("x"), true)) {
      out.write("three".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(read(dir.child("x"))).isEqualTo("three");
  }

  @Test
  void seeksAndPositionedReads() throws IOException {
    Path file = hdfs.root("seek/data");
    byte[] bytes = new byte[100_000];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 31);
    }
    try (OutputStream out = store.newOutputStream(file, false)) {
      out.write(bytes);
    }
    try (SeekableInputStream in = store.newInputStream(file)) {
      in.seek(77_777);
      assertThat((byte) in.read()).isEqualTo(bytes[77_777]);
      byte[] slice = new byte[10];
      in.readFully(500, slice, 0, 10);
      for (int i = 0; i < 10; i++) {
        assertThat(slice[i]).isEqualTo(bytes[500 + i]);
      }
    }
  }

  @Test
  void namesWithSpacesUnicodeAndPercentSurvive() throws IOException {
    Path dir = hdfs.root("names");
    Path odd = dir.child("a b ü 100% done");
    write(odd, "odd");
    assertThat(read(odd)).isEqualTo("odd");
    assertThat(store.list(dir)).extracting(s -> s.path().name()).containsExactly("a b ü 100% done");
  }

  @Test
  void renameRefusesAnExistingTargetAndKeepsBoth() throws IOException {
    SupportsAtomicRename rename = (SupportsAtomicRename) store;
    Path dir = hdfs.root("rename");
    write(dir.child("src"), "mine");
    write(dir.child("dst"), "theirs");
    assertThatThrownBy(() -> rename.renameAtomically(dir.child("src"), dir.child("dst")))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(dir.child("dst"))).isEqualTo("theirs");
    assertThat(read(dir.child("src"))).isEqualTo("mine");
    assertThatThrownBy(() -> rename.renameAtomically(dir.child("nope"), dir.child("other")))
        .isInstanceOf(FileNotFoundException.class);
    rename.renameAtomically(dir.child("src"), dir.child("deeper/new"));
    assertThat(read(dir.child("deeper/new"))).isEqualTo("mine");
    assertThat(store.exists(dir.child("src"))).isFalse();
  }

  @Test
  void sixteenRenamersRaceForOneTargetAndExactlyOneWinsEachRound() throws Exception {
    SupportsAtomicRename rename = (SupportsAtomicRename) store;
    int contenders = 16;
    int rounds = 20;
    ExecutorService pool = Executors.newFixedThreadPool(contenders);
    try {
      for (int round = 0; round < rounds; round++) {
        Path dir = hdfs.root("race/" + round);
        for (int c = 0; c < contenders; c++) {
          write(dir.child("tmp-" + c), "contender-" + c);
        }
        CyclicBarrier barrier = new CyclicBarrier(contenders);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int c = 0; c < contenders; c++) {
          int me = c;
          results.add(
              pool.submit(
                  () -> {
                    barrier.await();
                    try {
                      rename.renameAtomically(dir.child("tmp-" + me), dir.child("target"));
                      return true;
                    } catch (FileAlreadyExistsException e) {
                      return false;
                    }
                  }));
        }
        int winners = 0;
        int winner = -1;
        for (int c = 0; c < contenders; c++) {
          if (results.get(c).get()) {
            winners++;
            winner = c;
          }
        }
        assertThat(winners).as("winners in round %d", round).isEqualTo(1);
        assertThat(read(dir.child("target"))).isEqualTo("contender-" + winner);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
