package dev.lockstep.lock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockServiceDiscovery;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/** Options are parsed once, with clear errors; the factory is found by its identifier. */
class ZooKeeperLockOptionsTest {

  @Test
  void theFactoryIsFoundAsZookeeper() {
    assertThat(LockServiceDiscovery.factories(getClass().getClassLoader()))
        .containsKey("zookeeper");
  }

  @Test
  void aMissingConnectStringIsAClearError() {
    assertThatThrownBy(() -> LockServiceDiscovery.open(Map.of(LockOptions.LOCK_TYPE, "zookeeper")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'lock.zookeeper.connect-string' is required")
        .hasMessageContaining("host:port");
  }

  @Test
  void defaultsFollowTheDesign() {
    ZooKeeperLockOptions options =
        ZooKeeperLockOptions.from(
            Map.of(ZooKeeperLockOptions.CONNECT_STRING, " zk1:2181,zk2:2181 "));
    assertThat(options.connectString()).isEqualTo("zk1:2181,zk2:2181");
    assertThat(options.basePath()).isEqualTo("/lockstep/locks");
    assertThat(options.sessionTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(options.connectionTimeout()).isEqualTo(Duration.ofSeconds(15));
    assertThat(options.acl()).isEqualTo(ZooDefs.Ids.OPEN_ACL_UNSAFE);
    assertThat(options.lock().acquireTimeout()).isEqualTo(Duration.ofMinutes(8));
    assertThat(options.lock().checkMaxSleep()).isEqualTo(Duration.ofSeconds(8));
  }

  @Test
  void everyOptionIsRead() {
    Map<String, String> map = new HashMap<>();
    map.put(ZooKeeperLockOptions.CONNECT_STRING, "zk:2181");
    map.put(ZooKeeperLockOptions.BASE_PATH, "/team/locks/");
    map.put(ZooKeeperLockOptions.SESSION_TIMEOUT, "20 s");
    map.put(ZooKeeperLockOptions.CONNECTION_TIMEOUT, "3 s");
    map.put(ZooKeeperLockOptions.RETRY_BASE_SLEEP, "10 ms");
    map.put(ZooKeeperLockOptions.RETRY_MAX_SLEEP, "1 s");
    map.put(ZooKeeperLockOptions.RETRY_MAX_ATTEMPTS, "5");
    map.put(ZooKeeperLockOptions.AUTH_USER, "lockstep");
    map.put(ZooKeeperLockOptions.AUTH_PASSWORD, "s3cret-pw");
    map.put(LockOptions.LOCK_ACQUIRE_TIMEOUT, "1 min");
    map.put(LockOptions.LOCK_CHECK_MAX_SLEEP, "2 s");
    ZooKeeperLockOptions options = ZooKeeperLockOptions.from(map);
    assertThat(options.basePath()).isEqualTo("/team/locks");
    assertThat(options.sessionTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(options.connectionTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(options.retryMaxAttempts()).isEqualTo(5);
    assertThat(options.acl()).as("authenticated default").isEqualTo(ZooDefs.Ids.CREATOR_ALL_ACL);
    assertThat(options.lock().acquireTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(options.toString()).contains("lockstep").doesNotContain("s3cret-pw");
  }

  @Test
  void badValuesNameTheKeyAndTheFix() {
    Map<String, String> base = Map.of(ZooKeeperLockOptions.CONNECT_STRING, "zk:2181");
    assertThatThrownBy(
            () -> ZooKeeperLockOptions.from(with(base, ZooKeeperLockOptions.ACL, "creator")))
        .hasMessageContaining("lock.zookeeper.acl=creator")
        .hasMessageContaining("lock.zookeeper.auth.user");
    assertThatThrownBy(
            () ->
                ZooKeeperLockOptions.from(with(base, ZooKeeperLockOptions.ACL, "world:anyone:rx")))
        .hasMessageContaining("cdrwa");
    assertThatThrownBy(
            () -> ZooKeeperLockOptions.from(with(base, ZooKeeperLockOptions.AUTH_USER, "alone")))
        .hasMessageContaining("lock.zookeeper.auth.password");
    assertThatThrownBy(
            () ->
                ZooKeeperLockOptions.from(
                    with(base, ZooKeeperLockOptions.BASE_PATH, "relative/path")))
        .hasMessageContaining("absolute");
    assertThatThrownBy(
            () ->
                ZooKeeperLockOptions.from(with(base, ZooKeeperLockOptions.SESSION_TIMEOUT, "soon")))
        .hasMessageContaining("lock.zookeeper.session-timeout");
    assertThatThrownBy(
            () ->
                ZooKeeperLockOptions.from(with(base, ZooKeeperLockOptions.SESSION_TIMEOUT, "0 s")))
        .hasMessageContaining("positive");
  }

  @Test
  void customAclEntriesAreParsed() {
    assertThat(ZooKeeperLockOptions.parseAcl("digest:lockstep:abc=:cdrwa, world:anyone:r", false))
        .hasSize(2)
        .anySatisfy(
            acl -> {
              assertThat(acl.getId().getScheme()).isEqualTo("digest");
              assertThat(acl.getId().getId()).isEqualTo("lockstep:abc=");
              assertThat(acl.getPerms()).isEqualTo(ZooDefs.Perms.ALL);
            })
        .anySatisfy(acl -> assertThat(acl.getPerms()).isEqualTo(ZooDefs.Perms.READ));
  }

  @Test
  void keysBecomeSafeNodeNames() {
    assertThat(ZooKeeperLockService.encodeKey("db.table")).isEqualTo("db.table");
    assertThat(ZooKeeperLockService.encodeKey("a/b c")).isEqualTo("a%2Fb%20c");
    assertThat(ZooKeeperLockService.encodeKey("..")).isEqualTo("%2E%2E");
    assertThat(ZooKeeperLockService.encodeKey("数")).isEqualTo("%E6%95%B0");
  }

  private static Map<String, String> with(Map<String, String> base, String key, String value) {
    Map<String, String> map = new HashMap<>(base);
    map.put(key, value);
    return map;
  }
}
