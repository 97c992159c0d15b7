package dev.lockstep.lock.hive;

import dev.lockstep.lock.hive.testing.TestMetastore;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback TCP forwarder between one lock client and the test metastore, to cut that client off
 * (a network partition, or a holder paused so long that its heartbeats stop) while the metastore
 * and every other client carry on. {@link #partition()} closes every forwarded connection and
 * refuses new ones; {@link #heal()} lets connections through again.
 */
final class PartitionableProxy implements Closeable {

  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> sockets = new ArrayList<>();
  private volatile boolean partitioned;
  private final java.util.concurrent.atomic.AtomicBoolean loseNextAnswer =
      new java.util.concurrent.atomic.AtomicBoolean();

  PartitionableProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "partitionable-proxy-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  String uri() {
    return TestMetastore.uri(server.getLocalPort());
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      if (partitioned) {
        closeQuietly(client);
        continue;
      }
      try {
        Socket upstream = new Socket();
        upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5000);
        synchronized (sockets) {
          sockets.add(client);
          sockets.add(upstream);
        }
        pump(client, upstream, false);
        pump(upstream, client, true);
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pump(Socket from, Socket to, boolean answers) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  if (answers && loseNextAnswer.compareAndSet(true, false)) {
                    break; // the request was served; its answer never reaches the client
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // the connection was cut
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "partitionable-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  /** Cuts every connection through this proxy and refuses new ones until {@link #heal()}. */
  void partition() {
    partitioned = true;
    synchronized (sockets) {
      sockets.forEach(PartitionableProxy::closeQuietly);
      sockets.clear();
    }
  }

  /**
   * The next answer the metastore sends through this proxy is dropped and its connection cut: the
   * request was carried out, the client never learns its result.
   */
  void loseNextAnswer() {
    loseNextAnswer.set(true);
  }

  void heal() {
    partitioned = false;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    partition();
    server.close();
  }
}
