package dev.lockstep.bundle.lockhive;

import dev.lockstep.bundle.testing.IsolatedClasspath;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HMSHandler;
import org.apache.hadoop.hive.metastore.HMSHandlerProxyFactory;
import org.apache.hadoop.hive.metastore.IHMSHandler;
import org.apache.hadoop.hive.metastore.TSetIpAddressProcessor;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf.ConfVars;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;

/**
 * A real Hive Metastore 4.0.1 in the test JVM, set up the way lock-hive's tests set theirs up (that
 * module publishes no test-jar): embedded Derby created from the metastore's own schema script (with
 * the ACID lock tables), the metastore's handler behind a Thrift server on a free loopback port.
 *
 * <p>Calls are taken one at a time: Hive 4.0.1 on embedded Derby can deadlock under concurrent
 * {@code lock} and {@code check_lock} (see lock-hive's TestMetastore); production databases cannot.
 */
final class BundleTestMetastore implements AutoCloseable {

  private static final Object ONE_CALL_AT_A_TIME = new Object();

  static {
    System.setProperty("derby.system.durability", "test");
    // Derby's log goes under target/, not into the module directory.
    System.setProperty("derby.stream.error.file",
        Path.of(IsolatedClasspath.required("lockstep.bundle.work"), "derby.log").toString());
  }

  private final String databaseUrl;
  private final int port;
  private final TServer server;

  private BundleTestMetastore(Path directory, int port) throws Exception {
    this.port = port;
    this.databaseUrl = "jdbc:derby:;databaseName=" + directory.resolve("metastore_db");
    Configuration conf = MetastoreConf.newMetastoreConf();
    MetastoreConf.setVar(conf, ConfVars.CONNECT_URL_KEY, databaseUrl + ";create=true");
    MetastoreConf.setVar(conf, ConfVars.WAREHOUSE, directory.resolve("warehouse").toUri().toString());
    MetastoreConf.setBoolVar(conf, ConfVars.SCHEMA_VERIFICATION, false);
    MetastoreConf.setBoolVar(conf, ConfVars.AUTO_CREATE_ALL, false);
    MetastoreConf.setBoolVar(conf, ConfVars.HIVE_SUPPORT_CONCURRENCY, true);
    MetastoreConf.setVar(conf, ConfVars.HIVE_TXN_MANAGER,
        "org.apache.hadoop.hive.ql.lockmgr.DbTxnManager");
    MetastoreConf.setBoolVar(conf, ConfVars.METASTORE_HOUSEKEEPING_THREADS_ON, false);
    MetastoreConf.setBoolVar(conf, ConfVars.COMPACTOR_INITIATOR_ON, false);
    MetastoreConf.setBoolVar(conf, ConfVars.COMPACTOR_CLEANER_ON, false);
    MetastoreConf.setVar(conf, ConfVars.TASK_THREADS_ALWAYS, "");
    MetastoreConf.setVar(conf, ConfVars.TASK_THREADS_REMOTE_ONLY, "");
    MetastoreConf.setVar(conf, ConfVars.THRIFT_URIS, uri(port));
    createSchema(databaseUrl + ";create=true");

    IHMSHandler handler =
        HMSHandlerProxyFactory.getProxy(conf, new HMSHandler("bundle-test-metastore", conf), false);
    TServerSocket socket =
        new TServerSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    server = new TThreadPoolServer(new TThreadPoolServer.Args(socket)
        .processor(new TSetIpAddressProcessor<>(serialized(handler)))
        .minWorkerThreads(1)
        .maxWorkerThreads(16));
    Thread serving = new Thread(server::serve, "bundle-test-metastore");
    serving.setDaemon(true);
    serving.start();
    long deadline = System.nanoTime() + TestTiming.seconds(60).toNanos();
    while (!server.isServing()) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("The test metastore did not start serving on " + uri(port));
      }
      Thread.sleep(20);
    }
  }

  static BundleTestMetastore start() throws Exception {
    return new BundleTestMetastore(IsolatedClasspath.workDirectory("metastore-" + System.nanoTime()),
        freePort());
  }

  String uri() {
    return uri(port);
  }

  /** The metastore's next lock id: every lock it grants takes one. */
  long nextLockId() throws SQLException {
    try (Connection connection = DriverManager.getConnection(databaseUrl);
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT NL_NEXT FROM NEXT_LOCK_ID")) {
      row.next();
      return row.getLong(1);
    }
  }

  @Override
  public void close() {
    server.stop();
  }

  private static String uri(int port) {
    return "thrift://127.0.0.1:" + port;
  }

  private static void createSchema(String url) throws IOException, SQLException {
    Path script = IsolatedClasspath.requiredFile("lockstep.hive.schema");
    StringBuilder withoutComments = new StringBuilder();
    for (String line : Files.readAllLines(script, StandardCharsets.UTF_8)) {
      if (!line.trim().startsWith("--")) {
        withoutComments.append(line).append('\n');
      }
    }
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      for (String sql : withoutComments.toString().split(";\\s*\n")) {
        if (!sql.isBlank()) {
          statement.execute(sql.trim());
        }
      }
      connection.commit();
    }
  }

  private static ThriftHiveMetastore.Iface serialized(IHMSHandler handler) {
    return (ThriftHiveMetastore.Iface) Proxy.newProxyInstance(
        BundleTestMetastore.class.getClassLoader(), new Class<?>[] {ThriftHiveMetastore.Iface.class},
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

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
