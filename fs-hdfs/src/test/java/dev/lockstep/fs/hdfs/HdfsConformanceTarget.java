package dev.lockstep.fs.hdfs;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.UUID;

/** What HDFS declares to the conformance kit: store basics and atomic rename, no atomic create. */
final class HdfsConformanceTarget {

  private HdfsConformanceTarget() {}

  /**
   * Every race round on HDFS costs several NameNode round trips; 40 rounds of 8 contenders keep the
   * module's run short while each round still races all contenders on a barrier.
   */
  private static java.util.Map<String, String> withRounds(java.util.Map<String, String> options) {
    java.util.Map<String, String> out = new java.util.HashMap<>(options);
    out.put("conformance.rounds", "40");
    return out;
  }

  static ConformanceTarget target() {
    try {
      MiniHdfs hdfs = MiniHdfs.shared();
      return ConformanceTarget.builder()
          .uri(hdfs.uri() + "/conformance-" + UUID.randomUUID())
          .options(withRounds(hdfs.options()))
          .declare(Capability.STORE_BASICS, true)
          .declare(Capability.ATOMIC_RENAME, true)
          .declare(Capability.ATOMIC_CREATE, false)
          .declare(Capability.LOCK, false)
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start the MiniDFSCluster", e);
    }
  }
}
