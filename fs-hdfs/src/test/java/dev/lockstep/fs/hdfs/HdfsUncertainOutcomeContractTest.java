package dev.lockstep.fs.hdfs;

import dev.lockstep.conformance.UncertainOutcomeContract;
import dev.lockstep.conformance.ConformanceTarget;

/** The conformance kit's UncertainOutcome contract against a real MiniDFSCluster, with no lock. */
class HdfsUncertainOutcomeContractTest extends UncertainOutcomeContract {

  @Override
  protected ConformanceTarget target() {
    return HdfsConformanceTarget.target();
  }
}
