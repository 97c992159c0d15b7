package dev.lockstep.fs.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;

/**
 * A TCP proxy that reads what the client sends slowly ({@code bytesPerTick} every 10 ms) and passes
 * answers on at full speed: a slow network between a writer and the store. When the client gives up
 * (closes its connection), the proxy closes the server side without sending more, as a dropped
 * connection does.
 */
final class ThrottlingProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final int targetPort;
  private final int bytesPerTick;
  private final java.util.concurrent.atomic.AtomicInteger relays =
      new java.util.concurrent.atomic.AtomicInteger();

  ThrottlingProxy(int targetPort, int bytesPerTick) throws IOException {
    this.targetPort = targetPort;
    this.bytesPerTick = bytesPerTick;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "throttling-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort());
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
        relays.addAndGet(2);
        start(() -> relay(client, server, bytesPerTick));
        start(() -> relay(server, client, 1 << 16));
      } catch (IOException e) {
        // The listener closed.
      }
    }
  }

  /** Waits until every relay has ended (both sides of every connection closed). */
  boolean awaitIdle(java.time.Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (relays.get() > 0) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  private static void start(Runnable task) {
    Thread thread = new Thread(task, "throttling-proxy-relay");
    thread.setDaemon(true);
    thread.start();
  }

  private void relay(Socket from, Socket to, int chunk) {
    byte[] buffer = new byte[chunk];
    try (from;
        to) {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
        if (chunk < (1 << 16)) {
          Thread.sleep(10);
        }
      }
    } catch (IOException | InterruptedException e) {
      // One side closed: close both (try-with-resources), sending nothing more.
    } finally {
      relays.decrementAndGet();
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
