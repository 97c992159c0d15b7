package dev.lockstep.fs.hdfs;

import dev.lockstep.conformance.ConformanceSuite;
import dev.lockstep.conformance.ConformanceTarget;

/**
 * The whole conformance kit against a real MiniDFSCluster, with no lock. {@link
 * HdfsCommitContractTest} adds a second target: the commit contract under a lock.
 */
class HdfsConformanceTest extends ConformanceSuite {

  @Override
  protected ConformanceTarget target() {
    return HdfsConformanceTarget.target();
  }
}
