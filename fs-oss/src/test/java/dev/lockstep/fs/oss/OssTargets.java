package dev.lockstep.fs.oss;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceSettings;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.fs.oss.testing.OssTestServer;
import dev.lockstep.testing.TestTiming;
import java.util.HashMap;
import java.util.Map;

/** Store options and conformance targets over an {@link OssTestServer}. */
final class OssTargets {

  static final String BUCKET = "lockstep-test";

  private OssTargets() {}

  /**
   * Options for the server's default key, with small multipart sizes (threshold 1 MB, parts of 256
   * KB) so that multipart paths run on small objects.
   */
  static Map<String, String> options(OssTestServer server) {
    Map<String, String> options = new HashMap<>();
    options.put(OssOptions.ENDPOINT, server.endpoint());
    options.put(OssOptions.ACCESS_KEY_ID, server.accessKeyId());
    options.put(OssOptions.ACCESS_KEY_SECRET, server.accessKeySecret());
    options.put(OssOptions.MULTIPART_THRESHOLD, "1 MB");
    options.put(OssOptions.PART_SIZE, "256 KB");
    options.put(OssOptions.RETRY_INTERVAL, "20 ms");
    return options;
  }

  /**
   * The conformance target: store basics and atomic create present; rename and lock absent. The
   * large-object check keeps the kit's default (64 MiB, 256 parts of 256 KB here), the size a
   * published verdict needs.
   */
  static ConformanceTarget target(OssTestServer server) {
    Map<String, String> options = options(server);
    options.put(ConformanceSettings.ROUNDS, "12");
    options.put(ConformanceSettings.CONTENDERS, "8");
    options.put(ConformanceSettings.COMMITTERS, "4");
    options.put(ConformanceSettings.COMMITS_PER_COMMITTER, "8");
    options.put(ConformanceSettings.TIME_FACTOR, Double.toString(TestTiming.FACTOR));
    return ConformanceTarget.builder()
        .uri("oss://" + BUCKET + "/conformance")
        .options(options)
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_CREATE, true)
        .declare(Capability.ATOMIC_RENAME, false)
        .declare(Capability.LOCK, false)
        .build();
  }
}
