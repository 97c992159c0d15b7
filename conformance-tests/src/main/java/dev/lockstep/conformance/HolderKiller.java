package dev.lockstep.conformance;

import java.io.IOException;

/**
 * Makes a lock holder die while it holds a key, for the holder-death check.
 *
 * <p>The default ({@link ChildProcessHolderKiller}) starts a child JVM on the same classpath that
 * opens the lock through {@code LockServiceDiscovery} with the target's options, acquires the key,
 * reports its fencing token and halts with {@code Runtime.halt()}, so no shutdown hook or finally
 * block releases anything. An in-JVM test lock passes its own killer that stops a holder's
 * heartbeats.
 */
@FunctionalInterface
public interface HolderKiller {

  /**
   * Lets a new holder acquire {@code key} and then die without releasing it.
   *
   * <ul>
   *   <li>Before: {@code key} is free.
   *   <li>After return: {@code key} was acquired by a holder that is now dead (it will never renew,
   *       release or heartbeat again); the kit measures from this moment how long until it can
   *       acquire.
   *   <li>After an exception: the check fails with it; the key may or may not be held.
   * </ul>
   *
   * @return the dead holder's fencing token
   */
  long acquireAndDie(String key) throws IOException, InterruptedException;
}
