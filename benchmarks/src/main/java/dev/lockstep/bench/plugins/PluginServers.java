package dev.lockstep.bench.plugins;

import dev.lockstep.fs.s3.testing.S3ProxyServer;
import org.apache.curator.test.TestingServer;

/**
 * The servers of {@code benchmarks/run-paimon}, in a JVM of their own so that every measured JVM
 * talks to the same s3proxy 4.0.0 (fs-s3's {@link S3ProxyServer}, in memory) and ZooKeeper
 * (curator-test) over sockets: prints {@code s3=<endpoint> zookeeper=<host:port> access-key=...
 * secret-key=... bucket=...} on one line, then runs until its standard input closes.
 */
public final class PluginServers {

  private PluginServers() {}

  public static void main(String[] args) throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start();
        TestingServer zooKeeper = new TestingServer(true)) {
      System.out.println(
          "s3="
              + s3.endpoint()
              + " zookeeper="
              + zooKeeper.getConnectString()
              + " access-key="
              + S3ProxyServer.ACCESS_KEY
              + " secret-key="
              + S3ProxyServer.SECRET_KEY
              + " bucket="
              + S3ProxyServer.BUCKET);
      System.out.flush();
      while (System.in.read() >= 0) {
        // until the run script closes our input
      }
    }
  }
}
