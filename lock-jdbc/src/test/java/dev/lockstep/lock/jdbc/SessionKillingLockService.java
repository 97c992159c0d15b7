package dev.lockstep.lock.jdbc;

import dev.lockstep.lock.Lease;
import dev.lockstep.testing.ForwardingLockService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * Hands out leases of a {@link JdbcLockService} whose database session an operator has just killed
 * server-side, before the holder gets to use them: the moment between acquiring and publishing.
 */
final class SessionKillingLockService extends ForwardingLockService {

  private final TestDatabase database;

  SessionKillingLockService(JdbcLockService delegate, TestDatabase database) {
    super(delegate);
    this.database = database;
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout)
      throws IOException, InterruptedException {
    Optional<Lease> lease = super.acquire(key, timeout);
    lease.ifPresent(
        held -> {
          try {
            database.killSession(((JdbcLease) held).sessionId());
          } catch (SQLException e) {
            throw new UncheckedIOException(new IOException("could not kill the session", e));
          }
        });
    return lease;
  }
}
