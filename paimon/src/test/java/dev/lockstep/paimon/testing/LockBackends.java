package dev.lockstep.paimon.testing;

import dev.lockstep.lock.hive.testing.TestMetastore;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/** Catalog options of the {@code lockstep-*} locks on the test servers. */
public final class LockBackends {

  public static final String MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test";
  public static final String POSTGRESQL_URL = "jdbc:postgresql://127.0.0.1:5432/test";

  private LockBackends() {}

  public static Map<String, String> zookeeper(String connectString) {
    Map<String, String> options = new HashMap<>();
    options.put("lock.type", "lockstep-zookeeper");
    options.put("lock.zookeeper.connect-string", connectString);
    options.put("lock.zookeeper.session-timeout", "4 s");
    options.put("lock.zookeeper.connection-timeout", "5 s");
    options.put("lock-acquire-timeout", "2 min");
    options.put("lock-check-max-sleep", "200 ms");
    return options;
  }

  /** A JDBC lock in a lock table of its own. */
  public static Map<String, String> jdbc(String url, String user, String leaseTtl) {
    Map<String, String> options = new HashMap<>();
    options.put("lock.type", "lockstep-jdbc");
    options.put("lock.jdbc.url", url);
    options.put("lock.jdbc.user", user);
    options.put(
        "lock.jdbc.table",
        "lockstep_p_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    options.put("lock.jdbc.lease-ttl", leaseTtl);
    options.put("lock-acquire-timeout", "2 min");
    options.put("lock-check-max-sleep", "100 ms");
    return options;
  }

  public static Map<String, String> hive(TestMetastore metastore) {
    Map<String, String> options = new HashMap<>(metastore.lockOptions());
    options.put("lock.type", "lockstep-hive");
    options.put("lock-acquire-timeout", "2 min");
    return options;
  }

  /** Lockstep's S3 store with its conditional create switched off: a blind-put store. */
  public static Map<String, String> blindStore(Map<String, String> warehouse) {
    Map<String, String> options = new HashMap<>(warehouse);
    options.put("s3.conditional-writes", "false");
    return options;
  }
}
