package dev.lockstep.lock.hive.testing;

import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HMSHandler;
import org.apache.hadoop.hive.metastore.HMSHandlerProxyFactory;
import org.apache.hadoop.hive.metastore.IHMSHandler;
import org.apache.hadoop.hive.metastore.TSetIpAddressProcessor;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf.ConfVars;
import org.apache.hadoop.hive.metastore.txn.TxnStore;
import org.apache.hadoop.hive.metastore.txn.TxnUtils;
import org.apache.hadoop.hive.metastore.txn.service.AcidHouseKeeperService;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * A real Hive Metastore 4.0.1 in this JVM: embedded Derby on disk, Thrift on a free loopback port.
 * lock-hive's tests, the lock-hive bundle's integration test and the Hive lock benchmark all use
 * this one class, from lock-hive's test-jar (which holds only this package).
 *
 * <p>Two set-ups:
 *
 * <ul>
 *   <li>{@link #shared()}, for lock-hive's tests: a short lock timeout ({@link #LOCK_TIMEOUT}) and
 *       the metastore's housekeeper every {@link #HOUSEKEEPER_INTERVAL}, so that holder death and
 *       outages play out in seconds. Clients must be told the timeout: {@link #lockOptions()}.
 *   <li>{@link #start(Path)}, for whoever runs a lock client with its default options (the bundle
 *       smoke, the lock benchmark): the metastore's own lock timeout ({@code
 *       metastore.txn.timeout}, 300 s) and no housekeeper, so the client's and the server's
 *       timeouts agree.
 * </ul>
 *
 * <p>One per JVM: the metastore keeps its JDO and transaction connection pools in static fields, so
 * a second metastore in the same JVM would silently reuse the first one's database. Starting a
 * second one is refused; tests share one and use distinct lock keys instead.
 *
 * <ol>
 *   <li>The Derby database is created from the metastore's own schema script (with the ACID tables
 *       {@code HIVE_LOCKS} and {@code NEXT_LOCK_ID}). It ships only in the metastore's binary
 *       distribution on Maven Central; lock-hive's build unpacks it next to this class, into the
 *       test-jar, so users of the jar need no build step of their own.
 *   <li>The Thrift server is ours, over the metastore's own handler, so that {@link #stop()} can
 *       cut every open connection (the metastore's own server cannot be stopped) and {@link
 *       #start()} can bring it back on the same port over the same database.
 *   <li>Calls are taken one at a time (see {@link #serialized}).
 *   <li>With {@link #shared()}, the metastore's housekeeper ({@code AcidHouseKeeperService}, whose
 *       {@code performTimeOuts()} removes locks not heartbeated within {@link #LOCK_TIMEOUT}) runs
 *       every {@link #HOUSEKEEPER_INTERVAL} while the server is up; {@link #expireTimedOutLocks()}
 *       runs the timeout at once, for tests that must not wait for it.
 * </ol>
 */
public final class TestMetastore implements AutoCloseable {

  /**
   * One factor scales every wait in lock-hive's tests ({@code -Dlockstep.test.timing=2}): {@link
   * TestTiming#FACTOR} rounded up to a whole number.
   */
  public static final int TIMING = (int) Math.ceil(TestTiming.FACTOR);

  /**
   * The lock timeout of {@link #shared()} ({@code metastore.txn.timeout}); clients read the same.
   */
  public static final Duration LOCK_TIMEOUT = Duration.ofSeconds(6L * TIMING);

  /** How often the housekeeper ({@code AcidHouseKeeperService}) of {@link #shared()} runs. */
  public static final Duration HOUSEKEEPER_INTERVAL = Duration.ofSeconds(1L * TIMING);

  /** The schema script, a resource next to this class (see the class comment, step 1). */
  static final String SCHEMA = "hive-schema-4.0.0.derby.sql";

  private static final Object ONE_CALL_AT_A_TIME = new Object();
  private static TestMetastore first;
  private static Throwable failedStart;

  static {
    // No disk syncs in the test database: the JVM that owns it never crashes mid-test, and syncing
    // every metastore transaction on a shared 2-core machine costs seconds per test.
    System.setProperty("derby.system.durability", "test");
  }

  private final Path directory;
  private final String databaseUrl;
  private final Configuration conf;
  private final int port;
  private final boolean shared;
  private final List<Socket> accepted = new ArrayList<>();
  private TServer server;
  private Thread serving;

  private TestMetastore(Path directory, int port, boolean shared) {
    this.directory = directory;
    this.port = port;
    this.shared = shared;
    this.databaseUrl = "jdbc:derby:;databaseName=" + directory.resolve("metastore_db");
    this.conf = MetastoreConf.newMetastoreConf();
    MetastoreConf.setVar(conf, ConfVars.CONNECT_URL_KEY, databaseUrl + ";create=true");
    MetastoreConf.setVar(
        conf, ConfVars.WAREHOUSE, directory.resolve("warehouse").toUri().toString());
    MetastoreConf.setBoolVar(conf, ConfVars.SCHEMA_VERIFICATION, false);
    MetastoreConf.setBoolVar(conf, ConfVars.AUTO_CREATE_ALL, false);
    MetastoreConf.setBoolVar(conf, ConfVars.HIVE_SUPPORT_CONCURRENCY, true);
    MetastoreConf.setVar(
        conf, ConfVars.HIVE_TXN_MANAGER, "org.apache.hadoop.hive.ql.lockmgr.DbTxnManager");
    MetastoreConf.setBoolVar(conf, ConfVars.METASTORE_HOUSEKEEPING_THREADS_ON, false);
    MetastoreConf.setBoolVar(conf, ConfVars.COMPACTOR_INITIATOR_ON, false);
    MetastoreConf.setBoolVar(conf, ConfVars.COMPACTOR_CLEANER_ON, false);
    MetastoreConf.setVar(conf, ConfVars.TASK_THREADS_ALWAYS, "");
    MetastoreConf.setVar(conf, ConfVars.TASK_THREADS_REMOTE_ONLY, "");
    MetastoreConf.setVar(conf, ConfVars.THRIFT_URIS, uri(port));
    if (shared) {
      MetastoreConf.setTimeVar(
          conf, ConfVars.TXN_TIMEOUT, LOCK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      // Lock tests run many holders at once.
      MetastoreConf.setLongVar(conf, ConfVars.CONNECTION_POOLING_MAX_CONNECTIONS, 32);
    }
  }

  /**
   * lock-hive's tests' metastore (short lock timeout, housekeeper on), started on first use in a
   * new directory under {@code target/} (the system temporary directory outside a Maven module). It
   * lives as long as the JVM; the start fails if it takes longer than 30 s (scaled by {@link
   * #TIMING}).
   */
  public static synchronized TestMetastore shared() throws Exception {
    if (first != null && first.shared) {
      return first;
    }
    long started = System.nanoTime();
    Path target = Path.of("target");
    Path dir =
        Files.isDirectory(target)
            ? Files.createTempDirectory(target, "test-metastore-")
            : Files.createTempDirectory("lockstep-test-metastore-");
    TestMetastore metastore = launch(dir, true);
    metastore.startHousekeeper();
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    if (took.compareTo(Duration.ofSeconds(30L * TIMING)) > 0) {
      throw new IllegalStateException(
          "The test metastore took "
              + took
              + " to start (limit 30 s;"
              + " on a loaded machine raise -Dlockstep.test.timing)");
    }
    return metastore;
  }

  /**
   * A metastore with the server's default lock timeout and no housekeeper, on a new database in
   * {@code directory} (created if absent; Derby's log goes there too, unless {@code
   * derby.stream.error.file} is set). {@link #close()} stops it; the directory is the caller's.
   */
  public static synchronized TestMetastore start(Path directory) throws Exception {
    Files.createDirectories(directory);
    return launch(directory, false);
  }

  private static TestMetastore launch(Path directory, boolean shared) throws Exception {
    if (failedStart != null) {
      throw new IllegalStateException(
          "The Hive test metastore failed to start earlier in this JVM"
              + " (the cause follows); fix that first.",
          failedStart);
    }
    if (first != null) {
      throw new IllegalStateException(
          "A Hive test metastore already ran in this JVM (database in "
              + first.directory
              + "): the metastore keeps its connection pools in static fields, so a"
              + " second one would silently use the first one's database. Use one metastore per JVM"
              + " (share it, with distinct lock keys, or fork a JVM per metastore).");
    }
    if (System.getProperty("derby.stream.error.file") == null) {
      System.setProperty("derby.stream.error.file", directory.resolve("derby.log").toString());
    }
    long started = System.nanoTime();
    TestMetastore metastore = new TestMetastore(directory, freePort(), shared);
    long schemaReady;
    try {
      metastore.prepareDatabase();
      schemaReady = System.nanoTime();
      metastore.start();
      metastore.locksOn("warm", "up"); // opens the transaction store's connection pools now
    } catch (Exception | Error e) {
      failedStart = e;
      throw e;
    }
    first = metastore;
    System.out.println(
        "Metastore schema ready in "
            + TimeUnit.NANOSECONDS.toMillis(schemaReady - started)
            + " ms");
    System.out.println(
        "Hive Metastore 4.0.1 started on "
            + metastore.uri()
            + " in "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
            + " ms (database "
            + directory
            + ")");
    return metastore;
  }

  /** The address of a metastore (or of a proxy in front of one) on a loopback port. */
  public static String uri(int port) {
    return "thrift://127.0.0.1:" + port;
  }

  public String uri() {
    return uri(port);
  }

  public int port() {
    return port;
  }

  /** The metastore's own configuration. */
  public Configuration conf() {
    return conf;
  }

  /**
   * The catalog options a lock client needs to reach this metastore and to agree with its lock
   * timeout and housekeeper.
   */
  public Map<String, String> lockOptions() {
    if (!shared) {
      return Map.of("uri", uri(), "lock.enabled", "true", "lock.type", "hive");
    }
    return Map.of(
        "uri",
        uri(),
        "lock.enabled",
        "true",
        "lock.type",
        "hive",
        "metastore.txn.timeout",
        LOCK_TIMEOUT.toSeconds() + "s",
        "metastore.connect.retries",
        "1",
        "metastore.acid.housekeeper.interval",
        HOUSEKEEPER_INTERVAL.toSeconds() + "s",
        "lock-check-max-sleep",
        "200 ms");
  }

  /** Creates the metastore schema, ACID tables included, unless the database already has it. */
  private void prepareDatabase() throws IOException, SQLException {
    String script;
    try (InputStream in = TestMetastore.class.getResourceAsStream(SCHEMA)) {
      if (in == null) {
        throw new IllegalStateException(
            "The metastore schema script "
                + SCHEMA
                + " is not on the"
                + " class path next to "
                + TestMetastore.class.getName()
                + ". Build lock-hive with Maven,"
                + " which unpacks it from the metastore's binary distribution into its test classes and"
                + " test-jar.");
      }
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Connection connection = DriverManager.getConnection(databaseUrl + ";create=true");
        Statement statement = connection.createStatement()) {
      try {
        statement.executeQuery("SELECT COUNT(*) FROM NEXT_LOCK_ID").close();
        return;
      } catch (SQLException absent) {
        // a fresh database: run the script below
      }
      StringBuilder withoutComments = new StringBuilder();
      for (String line : script.split("\n")) {
        if (!line.trim().startsWith("--")) {
          withoutComments.append(line).append('\n');
        }
      }
      connection.setAutoCommit(false);
      for (String sql : withoutComments.toString().split(";\\s*\n")) {
        if (!sql.isBlank()) {
          statement.execute(sql.trim());
        }
      }
      connection.commit();
    }
  }

  /** Starts (or restarts) the Thrift server on this metastore's port. */
  public synchronized void start() throws Exception {
    if (server != null) {
      return;
    }
    IHMSHandler handler =
        HMSHandlerProxyFactory.getProxy(
            conf, new HMSHandler("lockstep-test-metastore", conf), false);
    TServerSocket socket = new TrackingServerSocket(port);
    TThreadPoolServer.Args args =
        new TThreadPoolServer.Args(socket)
            .processor(new TSetIpAddressProcessor<>(serialized(handler)))
            .minWorkerThreads(1)
            .maxWorkerThreads(64);
    TServer thrift = new TThreadPoolServer(args);
    CountDownLatch serveCalled = new CountDownLatch(1);
    Thread thread =
        new Thread(
            () -> {
              serveCalled.countDown();
              thrift.serve();
            },
            "test-metastore-" + port);
    thread.setDaemon(true);
    thread.start();
    serveCalled.await();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60L * TIMING);
    while (!thrift.isServing()) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("The test metastore did not start serving on " + uri());
      }
      Thread.sleep(20);
    }
    server = thrift;
    serving = thread;
  }

  /**
   * The handler with its calls taken one at a time. Hive 4.0.1 on Derby deadlocks under concurrent
   * lock and check_lock: check_lock updates the lock row's heartbeat in its transaction and then
   * waits for the JVM-wide Derby mutex, while the mutex holder (a lock call) waits for that row.
   * Only Derby's lock timeout breaks it, after a minute. Production databases have no such mutex;
   * taking the calls one at a time keeps the lock table's semantics and removes the deadlock.
   */
  private static ThriftHiveMetastore.Iface serialized(IHMSHandler handler) {
    return (ThriftHiveMetastore.Iface)
        Proxy.newProxyInstance(
            TestMetastore.class.getClassLoader(),
            new Class<?>[] {ThriftHiveMetastore.Iface.class},
            (proxy, method, args) -> {
              synchronized (ONE_CALL_AT_A_TIME) {
                try {
                  return method.invoke(handler, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              }
            });
  }

  /** Stops the Thrift server and cuts every open client connection; the database stays. */
  public synchronized void stop() throws InterruptedException {
    if (server == null) {
      return;
    }
    server.stop();
    synchronized (accepted) {
      for (Socket socket : accepted) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // already closed by the client
        }
      }
      accepted.clear();
    }
    serving.join(TimeUnit.SECONDS.toMillis(10));
    server = null;
    serving = null;
  }

  /**
   * Stops a metastore from {@link #start(Path)} for good: it accepts no more connections, and those
   * still open end as their clients close them (close the clients first). Unlike {@link #stop()} it
   * does not cut them, which the Thrift server would log as an error. No other metastore can start
   * in this JVM afterwards (see the class comment). The shared one lives as long as the JVM: use
   * {@link #stop()} to cut it off for a while.
   */
  @Override
  public synchronized void close() {
    if (shared) {
      throw new IllegalStateException(
          "The shared test metastore lives as long as the JVM and other"
              + " tests use it; call stop() (and start()) to take it down for a while.");
    }
    if (server != null) {
      server.stop();
      server = null;
      serving = null;
    }
  }

  /**
   * Runs the metastore's own housekeeper every {@link #HOUSEKEEPER_INTERVAL} while the Thrift
   * server is up, as a metastore with {@code metastore.housekeeping.threads.on} does.
   */
  private void startHousekeeper() {
    AcidHouseKeeperService housekeeper = new AcidHouseKeeperService();
    housekeeper.setConf(conf);
    Thread thread =
        new Thread(
            () -> {
              while (true) {
                try {
                  Thread.sleep(HOUSEKEEPER_INTERVAL.toMillis());
                  synchronized (this) {
                    if (server == null) {
                      continue; // a stopped metastore runs no housekeeping either
                    }
                  }
                  synchronized (ONE_CALL_AT_A_TIME) {
                    housekeeper.run();
                  }
                } catch (InterruptedException e) {
                  return;
                } catch (RuntimeException e) {
                  System.err.println("Test metastore housekeeper failed: " + e);
                }
              }
            },
            "test-metastore-housekeeper");
    thread.setDaemon(true);
    thread.start();
  }

  /** Runs the housekeeper's lock timeout: locks not heartbeated within the timeout are removed. */
  public void expireTimedOutLocks() {
    TxnStore txnStore = TxnUtils.getTxnStore(conf);
    synchronized (ONE_CALL_AT_A_TIME) {
      txnStore.performTimeOuts();
    }
  }

  /** Removes a lock on the server side, as an administrator would. */
  public void unlock(long lockId) throws Exception {
    synchronized (ONE_CALL_AT_A_TIME) {
      TxnUtils.getTxnStore(conf).unlock(new UnlockRequest(lockId));
    }
  }

  /** The locks (held or waiting) the metastore has on one table, read on the server side. */
  public List<ShowLocksResponseElement> locksOn(String database, String table) throws Exception {
    ShowLocksRequest request = new ShowLocksRequest();
    request.setDbname(database);
    request.setTablename(table);
    List<ShowLocksResponseElement> locks;
    synchronized (ONE_CALL_AT_A_TIME) {
      locks = TxnUtils.getTxnStore(conf).showLocks(request).getLocks();
    }
    return locks == null ? List.of() : locks;
  }

  /**
   * The metastore's next lock id ({@code NEXT_LOCK_ID}), read from its database: every lock it
   * grants takes one, so the difference of two readings is at least the number of locks granted.
   */
  public long nextLockId() throws SQLException {
    synchronized (ONE_CALL_AT_A_TIME) {
      try (Connection connection = DriverManager.getConnection(databaseUrl);
          Statement statement = connection.createStatement();
          ResultSet row = statement.executeQuery("SELECT NL_NEXT FROM NEXT_LOCK_ID")) {
        row.next();
        return row.getLong(1);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** A server socket bound to this metastore's port that remembers the connections it accepted. */
  private final class TrackingServerSocket extends TServerSocket {

    TrackingServerSocket(int port) throws TTransportException {
      super(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    @Override
    public TSocket accept() throws TTransportException {
      TSocket socket = super.accept();
      synchronized (accepted) {
        accepted.add(socket.getSocket());
      }
      return socket;
    }
  }
}
