package dev.lockstep.lock.hive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.lock.LockService;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The jar without the metastore client and Hadoop (both {@code provided}): {@code hive} is still
 * listed as a lock type, and opening it names what to add.
 */
class HiveLockClassPathTest {

  private static URL locationOf(Class<?> type) {
    return type.getProtectionDomain().getCodeSource().getLocation();
  }

  @Test
  void withoutHiveOnTheClassPathOpeningTheLockNamesTheMissingJar() throws Exception {
    URL[] onlyLockstep = {
      locationOf(HiveLockFactory.class),
      locationOf(LockService.class),
      locationOf(LoggerFactory.class)
    };
    try (URLClassLoader loader =
        new URLClassLoader(onlyLockstep, ClassLoader.getPlatformClassLoader())) {
      Class<?> discovery = loader.loadClass("dev.lockstep.lock.LockServiceDiscovery");
      Map<?, ?> factories =
          (Map<?, ?>) discovery.getMethod("factories", ClassLoader.class).invoke(null, loader);
      assertThat(factories.containsKey("hive"))
          .as("lock types found: %s", factories.keySet())
          .isTrue();

      Method open = discovery.getMethod("open", Map.class, ClassLoader.class);
      Map<String, String> options = Map.of("lock.type", "hive", "uri", "thrift://metastore:9083");
      Throwable failure = null;
      try {
        open.invoke(null, options, loader);
      } catch (InvocationTargetException e) {
        failure = e.getCause();
      }
      assertThat(failure)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("org.apache.hadoop.hive.metastore.HiveMetaStoreClient")
          .hasMessageContaining("hive-standalone-metastore-common");
    }
  }
}
