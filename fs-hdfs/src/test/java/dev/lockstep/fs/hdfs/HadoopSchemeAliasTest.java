package dev.lockstep.fs.hdfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitStrategyUnavailableException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicRename;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Other Hadoop-compatible schemes: served through {@code fs.scheme-alias.<scheme>=hdfs}, declaring
 * no atomic rename unless the user vouches; a vouched filesystem renames through {@code
 * FileSystem.rename} and tells a conflict from a missing source.
 */
class HadoopSchemeAliasTest {

  private static MiniHdfs hdfs;

  @BeforeAll
  static void start() throws IOException {
    hdfs = MiniHdfs.shared();
  }

  private static void write(FileIO io, Path path, String text) throws IOException {
    try (OutputStream out = io.newOutputStream(path, false)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String read(FileIO io, Path path) throws IOException {
    try (InputStream in = io.newInputStream(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void anAliasedSchemeIsServedByTheHadoopStoreWithNoAtomicRename() throws IOException {
    java.nio.file.Path local = Files.createTempDirectory("lockstep-aliasfs");
    Path dir = Path.of(AliasedLocalFileSystem.SCHEME + "://" + local.toAbsolutePath());
    Map<String, String> options =
        Map.of(
            FileIODiscovery.SCHEME_ALIAS_PREFIX + AliasedLocalFileSystem.SCHEME,
            "hdfs",
            "hadoop.fs." + AliasedLocalFileSystem.SCHEME + ".impl",
            AliasedLocalFileSystem.class.getName());
    try (FileIO io = FileIODiscovery.open(dir, options)) {
      assertThat(io).isInstanceOf(HadoopFileIO.class).isNotInstanceOf(SupportsAtomicRename.class);
      write(io, dir.child("a"), "alpha");
      assertThat(read(io, dir.child("a"))).isEqualTo("alpha");
      assertThat(Files.readString(local.resolve("a"))).isEqualTo("alpha");
      assertThatThrownBy(
              () ->
                  SnapshotCommitter.builder(io, dir.child("snapshot"), "db.t")
                      .options(Map.of())
                      .open())
          .isInstanceOf(CommitStrategyUnavailableException.class)
          .hasMessageContaining("lock.enabled=true");
    }
    assertThatThrownBy(() -> FileIODiscovery.open(dir, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fs.scheme-alias." + AliasedLocalFileSystem.SCHEME);
  }

  @Test
  void aVouchedFileSystemRenamesWithoutReplaceThroughFileSystemRename() throws IOException {
    // HDFS's own client without its FileContext: the path a vouched vendor filesystem takes.
    Path dir = hdfs.root("vouched");
    FileSystem fileSystem =
        FileSystem.newInstance(
            java.net.URI.create(hdfs.uri() + "/"),
            HadoopFileIOLoader.configuration(dev.lockstep.options.Options.of(hdfs.options())));
    try (HdfsFileIO io = new HdfsFileIO(fileSystem, null, "vouched")) {
      write(io, dir.child("src"), "mine");
      write(io, dir.child("dst"), "theirs");
      assertThatThrownBy(() -> io.renameAtomically(dir.child("src"), dir.child("dst")))
          .isInstanceOf(FileAlreadyExistsException.class);
      assertThat(read(io, dir.child("dst"))).isEqualTo("theirs");
      assertThatThrownBy(() -> io.renameAtomically(dir.child("none"), dir.child("x")))
          .isInstanceOf(FileNotFoundException.class);
      io.renameAtomically(dir.child("src"), dir.child("new/name"));
      assertThat(read(io, dir.child("new/name"))).isEqualTo("mine");
      assertThat(io.exists(dir.child("src"))).isFalse();
    }
  }
}
