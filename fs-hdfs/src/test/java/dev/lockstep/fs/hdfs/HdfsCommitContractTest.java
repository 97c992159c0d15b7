package dev.lockstep.fs.hdfs;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.CommitContract;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.testing.ForwardingLockService;
import dev.lockstep.testing.InJvmLockService;

/**
 * The conformance kit's commit contract on a real MiniDFSCluster: lock-free with rename, and also
 * with {@code lock.enabled=true} (an in-JVM test lock standing in for a lock service), where the
 * commit protocol uses rename inside the lock.
 */
class HdfsCommitContractTest extends CommitContract {

  private static final InJvmLockService LOCK = new InJvmLockService();

  @Override
  protected ConformanceTarget target() {
    ConformanceTarget store = HdfsConformanceTarget.target();
    return ConformanceTarget.builder()
        .uri(store.uri())
        .options(store.options())
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_RENAME, true)
        .declare(Capability.ATOMIC_CREATE, false)
        .declare(Capability.LOCK, true)
        .lockFactory(() -> ForwardingLockService.unclosable(LOCK))
        .build();
  }
}
