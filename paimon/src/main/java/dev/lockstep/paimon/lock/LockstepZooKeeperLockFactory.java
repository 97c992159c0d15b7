package dev.lockstep.paimon.lock;

/** {@code lock.type = lockstep-zookeeper}: Lockstep's zookeeper lock as a Paimon catalog lock. */
public final class LockstepZooKeeperLockFactory extends LockstepPaimonLockFactory {

  private static final long serialVersionUID = 1L;

  public static final String IDENTIFIER = "lockstep-zookeeper";

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  protected String connectionOption() {
    return "'lock.zookeeper.connect-string'";
  }

  @Override
  protected dev.lockstep.lock.CatalogLockFactory backend() {
    return new dev.lockstep.lock.zookeeper.ZooKeeperLockFactory();
  }
}
