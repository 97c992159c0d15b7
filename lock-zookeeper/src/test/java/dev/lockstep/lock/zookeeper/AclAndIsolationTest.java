package dev.lockstep.lock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

/**
 * Digest authentication with ACLs on a real server, and the boundary of the SPI: lock-api knows
 * nothing of Curator or ZooKeeper.
 */
class AclAndIsolationTest {

  private static final String PASSWORD = "pa55-w0rd";

  private static Map<String, String> authenticated(String connectString, String password) {
    Map<String, String> options = new HashMap<>(ZooKeeperTesting.options(connectString));
    options.put(ZooKeeperLockOptions.BASE_PATH, "/secured/locks");
    options.put(ZooKeeperLockOptions.AUTH_USER, "lockstep");
    options.put(ZooKeeperLockOptions.AUTH_PASSWORD, password);
    return options;
  }

  @Test
  void lockNodesAreOnlyForTheConfiguredIdentity() throws Exception {
    try (TestingServer server = ZooKeeperTesting.startServer();
        ZooKeeperLockService writer =
            ZooKeeperTesting.ownProcessService(authenticated(server.getConnectString(), PASSWORD));
        ZooKeeperLockService sameIdentity =
            ZooKeeperTesting.ownProcessService(authenticated(server.getConnectString(), PASSWORD));
        ZooKeeperLockService wrongPassword =
            ZooKeeperTesting.ownProcessService(
                authenticated(server.getConnectString(), "not-" + PASSWORD))) {
      Lease first = writer.acquire("db.secure", Duration.ofSeconds(5)).orElseThrow();
      first.close();
      Lease second = sameIdentity.acquire("db.secure", Duration.ofSeconds(5)).orElseThrow();
      assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

      assertThatThrownBy(() -> wrongPassword.acquire("db.secure", Duration.ofSeconds(5)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("NoAuth")
          .hasMessageContaining(ZooKeeperLockOptions.AUTH_USER)
          .satisfies(e -> assertThat(e.toString()).doesNotContain(PASSWORD));

      try (CuratorFramework anonymous =
          CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(10))) {
        anonymous.start();
        String node = ((ZooKeeperLease) second).nodePath();
        assertThatThrownBy(() -> anonymous.delete().forPath(node))
            .as("an anonymous client deleting the holder's node")
            .isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> anonymous.getChildren().forPath("/secured/locks/db.secure"))
            .isInstanceOf(KeeperException.NoAuthException.class);
      }
      assertThat(second.isHeld()).isTrue();
      second.close();
    }
  }

  @Test
  void lockApiHasNoCuratorOrZooKeeperClass() throws IOException {
    URL location =
        dev.lockstep.lock.Lease.class.getProtectionDomain().getCodeSource().getLocation();
    java.nio.file.Path where = java.nio.file.Path.of(location.getPath());
    List<String> offenders = new ArrayList<>();
    List<String> scanned = new ArrayList<>();
    if (Files.isDirectory(where)) {
      try (Stream<java.nio.file.Path> files = Files.walk(where)) {
        for (java.nio.file.Path file : (Iterable<java.nio.file.Path>) files::iterator) {
          if (Files.isRegularFile(file)) {
            String name = where.relativize(file).toString();
            scanned.add(name);
            check(name, Files.readAllBytes(file), offenders);
          }
        }
      }
    } else {
      try (ZipInputStream jar = new ZipInputStream(Files.newInputStream(where))) {
        for (ZipEntry entry; (entry = jar.getNextEntry()) != null; ) {
          scanned.add(entry.getName());
          check(entry.getName(), jar.readAllBytes(), offenders);
        }
      }
    }
    assertThat(scanned)
        .as("lock-api at %s", where)
        .contains("dev/lockstep/lock/Lease.class", "dev/lockstep/commit/SnapshotCommitter.class");
    assertThat(offenders).as("entries of %s that name Curator or ZooKeeper", where).isEmpty();
  }

  /** A class name or a reference in a class's constant pool, or a dependency in the jar's pom. */
  private static void check(String name, byte[] content, List<String> offenders) {
    String text = new String(content, StandardCharsets.ISO_8859_1);
    for (String forbidden :
        List.of(
            "org/apache/curator",
            "org/apache/zookeeper",
            "org.apache.curator",
            "org.apache.zookeeper")) {
      if (name.contains(forbidden)
          || ((name.endsWith(".class") || name.endsWith("pom.xml")) && text.contains(forbidden))) {
        offenders.add(name + " (" + forbidden + ")");
      }
    }
  }
}
