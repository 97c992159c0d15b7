package dev.lockstep.paimon.lock;

/** {@code lock.type = lockstep-hive}: Lockstep's hive lock as a Paimon catalog lock. */
public final class LockstepHiveLockFactory extends LockstepPaimonLockFactory {

  private static final long serialVersionUID = 1L;

  public static final String IDENTIFIER = "lockstep-hive";

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  protected String connectionOption() {
    return "the catalog's 'uri' (or 'lock.hive.uri')";
  }

  @Override
  protected dev.lockstep.lock.CatalogLockFactory backend() {
    return new dev.lockstep.lock.hive.HiveLockFactory();
  }
}
