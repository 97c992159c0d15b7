package dev.lockstep.fs.s3;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceSettings;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.testing.TestTiming;
import java.util.HashMap;
import java.util.Map;

/**
 * The conformance kit's target for the S3 store on s3proxy: store basics and atomic create declared
 * present, atomic rename and lock declared absent (commits run with no lock). The store is opened
 * by URI through the ServiceLoader, exactly as a vendor's properties file would.
 */
final class S3ConformanceTargets {

  private S3ConformanceTargets() {}

  static ConformanceTarget on(S3ProxyServer server) {
    Map<String, String> options = new HashMap<>(server.options());
    options.put(ConformanceSettings.ROUNDS, "12");
    options.put(ConformanceSettings.CONTENDERS, "8");
    options.put(ConformanceSettings.COMMITTERS, "4");
    options.put(ConformanceSettings.COMMITS_PER_COMMITTER, "10");
    options.put(ConformanceSettings.TIME_FACTOR, Double.toString(TestTiming.FACTOR));
    return ConformanceTarget.builder()
        .uri(server.freshRoot().toString())
        .options(options)
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_CREATE, true)
        .declare(Capability.ATOMIC_RENAME, false)
        .declare(Capability.LOCK, false)
        .source("fs-s3 on s3proxy 4.0.0 (transient-nio2)")
        .build();
  }
}
