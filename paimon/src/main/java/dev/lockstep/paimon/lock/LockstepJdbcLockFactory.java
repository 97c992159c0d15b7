package dev.lockstep.paimon.lock;

/** {@code lock.type = lockstep-jdbc}: Lockstep's jdbc lock as a Paimon catalog lock. */
public final class LockstepJdbcLockFactory extends LockstepPaimonLockFactory {

  private static final long serialVersionUID = 1L;

  public static final String IDENTIFIER = "lockstep-jdbc";

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  protected String connectionOption() {
    return "'lock.jdbc.url' (and 'lock.jdbc.user', 'lock.jdbc.password')";
  }

  @Override
  protected dev.lockstep.lock.CatalogLockFactory backend() {
    return new dev.lockstep.lock.jdbc.JdbcCatalogLockFactory();
  }
}
