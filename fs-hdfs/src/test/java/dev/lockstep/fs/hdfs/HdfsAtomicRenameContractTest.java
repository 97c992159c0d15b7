package dev.lockstep.fs.hdfs;

import dev.lockstep.conformance.AtomicRenameContract;
import dev.lockstep.conformance.ConformanceTarget;

/** The conformance kit's AtomicRename contract against a real MiniDFSCluster, with no lock. */
class HdfsAtomicRenameContractTest extends AtomicRenameContract {

  @Override
  protected ConformanceTarget target() {
    return HdfsConformanceTarget.target();
  }
}
