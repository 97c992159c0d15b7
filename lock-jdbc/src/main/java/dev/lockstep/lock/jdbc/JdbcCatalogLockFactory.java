package dev.lockstep.lock.jdbc;

import dev.lockstep.lock.CatalogLockFactory;
import dev.lockstep.lock.LockService;
import dev.lockstep.options.OptionSet;
import java.io.IOException;
import java.util.Map;

/** {@code lock.type=jdbc}: a {@link JdbcLockService} on MySQL, MariaDB or PostgreSQL. */
public final class JdbcCatalogLockFactory implements CatalogLockFactory {

  public static final String IDENTIFIER = "jdbc";

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  public OptionSet options() {
    return JdbcLockOptions.OPTIONS;
  }

  /**
   * Opens a {@link JdbcLockService} from the {@code lock.jdbc.*} and generic lock options.
   *
   * @throws IllegalArgumentException when an option is missing or invalid, naming the key and the
   *     fix; an unknown {@code lock.jdbc.*} key is refused with the nearest known key
   * @throws IOException when the database cannot be reached or the lock table cannot be created
   */
  @Override
  public LockService create(Map<String, String> options) throws IOException {
    return JdbcLockService.open(options);
  }
}
