package dev.lockstep.lock;

import java.io.IOException;

/**
 * The lease is gone or in doubt (session suspended or expired, heartbeat failed, TTL passed, row
 * taken over). Whatever the holder was about to publish under it must not be published.
 */
public class LockLostException extends IOException {

  public LockLostException(String message) {
    super(message);
  }

  public LockLostException(String message, Throwable cause) {
    super(message, cause);
  }
}
