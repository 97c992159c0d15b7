package dev.lockstep.fs.hdfs;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.UUID;

/** What HDFS declares to the conformance kit: store basics and atomic rename, no atomic create. */
final class HdfsConformanceTarget {

  private HdfsConformanceTarget() {}

  static ConformanceTarget target() {
    try {
      MiniHdfs hdfs = MiniHdfs.shared();
      return ConformanceTarget.builder()
          .uri(hdfs.uri() + "/conformance-" + UUID.randomUUID())
          .options(hdfs.options())
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
