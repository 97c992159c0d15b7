package dev.lockstep.fs.hdfs;

import dev.lockstep.conformance.StoreContract;
import dev.lockstep.conformance.ConformanceTarget;

/** The conformance kit's Store contract against a real MiniDFSCluster, with no lock. */
class HdfsStoreContractTest extends StoreContract {

  @Override
  protected ConformanceTarget target() {
    return HdfsConformanceTarget.target();
  }
}
