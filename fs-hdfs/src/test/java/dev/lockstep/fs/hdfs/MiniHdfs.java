package dev.lockstep.fs.hdfs;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/** A real HDFS (one NameNode, one DataNode) in this JVM, on free ports, for one test class. */
final class MiniHdfs implements AutoCloseable {

  private static MiniHdfs shared;

  /**
   * The cluster every test class of this module shares (one start per test JVM; test classes use
   * their own directories). Shut down when the JVM exits.
   */
  static synchronized MiniHdfs shared() throws IOException {
    if (shared == null) {
      MiniHdfs started = new MiniHdfs();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      started.close();
                    } catch (IOException ignored) {
                      // The JVM is exiting; the temporary directory is removed on a best-effort
                      // basis.
                    }
                  }));
      shared = started;
    }
    return shared;
  }

  private final MiniDFSCluster cluster;
  private final File baseDir;

  MiniHdfs() throws IOException {
    baseDir = Files.createTempDirectory("lockstep-minidfs").toFile();
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDir.getAbsolutePath());
    // Clients retry quickly while the NameNode restarts in tests.
    conf.setInt("ipc.client.connect.max.retries", 50);
    conf.setInt("ipc.client.connect.retry.interval", 200);
    cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    cluster.waitActive();
  }

  /** The cluster's root URI, such as {@code hdfs://localhost:41234}. */
  String uri() {
    return "hdfs://localhost:" + cluster.getNameNodePort();
  }

  /** Catalog options a client needs for this cluster. */
  Map<String, String> options() {
    return Map.of(
        "hadoop.ipc.client.connect.max.retries", "50",
        "hadoop.ipc.client.connect.retry.interval", "200",
        "hadoop.dfs.client.block.write.replace-datanode-on-failure.enable", "false");
  }

  /** A store for {@code subPath}, opened through ServiceLoader discovery as a user would. */
  FileIO open() throws IOException {
    return FileIODiscovery.open(Path.of(uri() + "/"), options());
  }

  Path root(String name) {
    return Path.of(uri() + "/" + name);
  }

  void restartNameNode() throws IOException {
    cluster.restartNameNode(true);
  }

  @Override
  public void close() throws IOException {
    cluster.shutdown(true);
    org.apache.hadoop.fs.FileUtil.fullyDelete(baseDir);
  }
}
