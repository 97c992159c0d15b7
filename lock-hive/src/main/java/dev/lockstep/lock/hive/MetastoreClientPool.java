package dev.lockstep.lock.hive;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.thrift.TBase;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A few metastore clients shared by the lock's callers and its heartbeat thread. A metastore client
 * serves one call at a time, so each call borrows one exclusively.
 *
 * <p>A call that fails with an answer from the metastore (a Thrift-declared exception such as
 * {@code NoSuchLockException}) returns its client to the pool. Any other failure (connection
 * refused or reset, socket timeout, protocol error) leaves the connection in an unknown state: that
 * client is closed and dropped, and the next call connects afresh, so the pool reconnects after a
 * metastore restart on its own.
 */
final class MetastoreClientPool implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(MetastoreClientPool.class);

  /** One metastore call. */
  @FunctionalInterface
  interface Call<T> {
    T run(IMetaStoreClient client) throws TException;
  }

  private final Configuration conf;
  private final List<String> uris;
  private final Semaphore permits;
  private final Deque<IMetaStoreClient> idle = new ArrayDeque<>();
  private boolean closed;

  MetastoreClientPool(Configuration conf, List<String> uris, int size) {
    this.conf = conf;
    this.uris = uris;
    this.permits = new Semaphore(size, true);
  }

  /**
   * Runs {@code call} on a pooled client, connecting one when none is idle.
   *
   * @throws TException the metastore's answer (client kept) or a connection failure (client
   *     dropped)
   * @throws MetastoreUnreachableException when no client could connect to any address
   * @throws InterruptedException while waiting for a free client; nothing was sent
   */
  <T> T call(Call<T> call) throws TException, MetastoreUnreachableException, InterruptedException {
    permits.acquire();
    try {
      IMetaStoreClient client = borrow();
      boolean reusable = false;
      try {
        T result = call.run(client);
        reusable = true;
        return result;
      } catch (TException e) {
        reusable = isAnswer(e);
        throw e;
      } catch (RuntimeException e) {
        reusable = false;
        throw e;
      } finally {
        if (reusable) {
          giveBack(client);
        } else {
          closeQuietly(client);
        }
      }
    } finally {
      permits.release();
    }
  }

  /** Whether {@code e} is the metastore's own answer, not a failure of the connection. */
  static boolean isAnswer(TException e) {
    return e instanceof TBase;
  }

  private IMetaStoreClient borrow() throws MetastoreUnreachableException {
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("The Hive lock service is closed");
      }
      IMetaStoreClient client = idle.pollFirst();
      if (client != null) {
        return client;
      }
    }
    try {
      return new HiveMetaStoreClient(conf);
    } catch (TException | RuntimeException e) {
      throw new MetastoreUnreachableException(
          "Cannot connect to the Hive Metastore at "
              + uris
              + " ("
              + firstLine(e.getMessage())
              + "). Check that it runs and that the option 'uri' (or"
              + " 'lock.hive.uri') names it.",
          e);
    }
  }

  /** The metastore client puts a whole stack trace into its message; the first line says enough. */
  private static String firstLine(String message) {
    if (message == null) {
      return "no detail";
    }
    int end = message.indexOf('\n');
    return (end < 0 ? message : message.substring(0, end)).trim();
  }

  private void giveBack(IMetaStoreClient client) {
    synchronized (this) {
      if (!closed) {
        idle.addFirst(client);
        return;
      }
    }
    closeQuietly(client);
  }

  private static void closeQuietly(IMetaStoreClient client) {
    try {
      client.close();
    } catch (RuntimeException e) {
      LOG.debug("Closing a metastore client failed", e);
    }
  }

  /** Closes idle clients; clients in use close when their call returns. Idempotent. */
  @Override
  public void close() {
    List<IMetaStoreClient> toClose;
    synchronized (this) {
      closed = true;
      toClose = List.copyOf(idle);
      idle.clear();
    }
    toClose.forEach(MetastoreClientPool::closeQuietly);
  }

  /** No client could connect to any configured metastore address. */
  static final class MetastoreUnreachableException extends IOException {
    MetastoreUnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
