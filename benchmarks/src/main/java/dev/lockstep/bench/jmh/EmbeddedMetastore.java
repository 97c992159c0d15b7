package dev.lockstep.bench.jmh;

import java.io.IOException;
import java.io.InputStream;
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
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
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
 * A real Hive Metastore 4.0.1 in this JVM for the lock benchmark: embedded Derby in a temporary
 * directory, Thrift on a free loopback port. lock-hive keeps its own test metastore package-private
 * in its tests (no test-jar), so this is the benchmark's own, built the same way:
 *
 * <ol>
 *   <li>The Derby database is created from the metastore's own schema script (with the lock tables),
 *       which Maven unpacks from the binary distribution onto this module's class path.
 *   <li>The Thrift server runs the metastore's own handler; calls are taken one at a time, because
 *       Hive 4.0.1 on Derby deadlocks under concurrent {@code lock} and {@code check_lock} (a
 *       Derby-only JVM-wide mutex; production databases have none). The lock benchmark has one
 *       caller, so this costs nothing there.
 *   <li>No housekeeping threads run.
 * </ol>
 *
 * <p>One per JVM: the metastore keeps its connection pools in static fields.
 */
final class EmbeddedMetastore implements AutoCloseable {

  private static final String SCHEMA = "hive-schema-4.0.0.derby.sql";
  private static final Object ONE_CALL_AT_A_TIME = new Object();

  private final Path directory;
  private final Configuration conf;
  private final int port;
  private final TServer server;

  private EmbeddedMetastore(Path directory, int port) throws Exception {
    System.setProperty("derby.system.durability", "test");
    System.setProperty("derby.stream.error.file", directory.resolve("derby.log").toString());
    this.directory = directory;
    this.port = port;
    this.conf = MetastoreConf.newMetastoreConf();
    MetastoreConf.setVar(conf, ConfVars.CONNECT_URL_KEY,
        "jdbc:derby:;databaseName=" + directory.resolve("metastore_db") + ";create=true");
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
    MetastoreConf.setVar(conf, ConfVars.THRIFT_URIS, uri());
    createSchema();
    IHMSHandler handler =
        HMSHandlerProxyFactory.getProxy(conf, new HMSHandler("lockstep-bench-metastore", conf), false);
    TServerSocket socket =
        new TServerSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    server = new TThreadPoolServer(new TThreadPoolServer.Args(socket)
        .processor(new TSetIpAddressProcessor<>(serialized(handler)))
        .minWorkerThreads(1)
        .maxWorkerThreads(16));
    Thread serving = new Thread(server::serve, "bench-metastore-" + port);
    serving.setDaemon(true);
    serving.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!server.isServing()) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("The embedded metastore did not start serving on " + uri());
      }
      Thread.sleep(20);
    }
  }

  /** Starts a metastore on a fresh Derby database in a temporary directory. */
  static EmbeddedMetastore start() throws Exception {
    return new EmbeddedMetastore(Files.createTempDirectory("lockstep-bench-hms-"), freePort());
  }

  String uri() {
    return "thrift://127.0.0.1:" + port;
  }

  private void createSchema() throws IOException, SQLException {
    String script;
    try (InputStream in = EmbeddedMetastore.class.getResourceAsStream(SCHEMA)) {
      if (in == null) {
        throw new IllegalStateException("The metastore schema script " + SCHEMA + " is not on the"
            + " class path; build the module with Maven, which unpacks it from the metastore's"
            + " binary distribution.");
      }
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    StringBuilder withoutComments = new StringBuilder();
    for (String line : script.split("\n")) {
      if (!line.trim().startsWith("--")) {
        withoutComments.append(line).append('\n');
      }
    }
    String url = MetastoreConf.getVar(conf, ConfVars.CONNECT_URL_KEY);
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
        EmbeddedMetastore.class.getClassLoader(), new Class<?>[] {ThriftHiveMetastore.Iface.class},
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

  @Override
  public void close() {
    server.stop();
    ScratchDirectory.delete(directory);
  }
}
