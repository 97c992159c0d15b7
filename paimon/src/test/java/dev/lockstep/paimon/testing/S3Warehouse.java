package dev.lockstep.paimon.testing;

import dev.lockstep.fs.s3.testing.S3ProxyServer;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Catalog options of a fresh Paimon warehouse on the test s3proxy, in the keys Paimon users write.
 */
public final class S3Warehouse {

  private S3Warehouse() {}

  /**
   * The filesystem catalog with Paimon's {@code s3.*} keys (as {@code paimon-s3} reads them), which
   * Lockstep's s3 FileIO maps onto its own.
   */
  public static Map<String, String> options(S3ProxyServer server) {
    Map<String, String> options = new HashMap<>();
    options.put("warehouse", "s3://" + S3ProxyServer.BUCKET + "/w-" + UUID.randomUUID());
    options.put("s3.endpoint", server.endpoint().toString());
    options.put("s3.endpoint.region", "us-east-1");
    options.put("s3.access-key", S3ProxyServer.ACCESS_KEY);
    options.put("s3.secret-key", S3ProxyServer.SECRET_KEY);
    options.put("s3.path.style.access", "true");
    return options;
  }
}
