package dev.lockstep.engine.store;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The state of the maintenance a table object runs after its commits (snapshot expiration): at most
 * one run at a time per table object, and the earliest wall-clock time at which a run can have
 * anything to do. One per {@link TableStore}, so that no global map keyed by table path outlives
 * the table or couples unrelated tables and tests; table objects of one table are independent
 * (expirations that run at once are safe, see {@code SnapshotExpiration}).
 */
public final class MaintenanceGate {

  private final AtomicBoolean running = new AtomicBoolean();
  private volatile long notBeforeMillis;

  /** Enters the gate; {@code false} when a run of this table object is going on. */
  public boolean tryEnter() {
    return running.compareAndSet(false, true);
  }

  /** Leaves the gate after {@link #tryEnter()} returned {@code true}. */
  public void exit() {
    running.set(false);
  }

  /** The wall-clock time (ms) before which a run has nothing to do; 0 when unknown. */
  public long notBeforeMillis() {
    return notBeforeMillis;
  }

  /** Records when a run can next have something to do; 0 forgets it. */
  public void notBefore(long millis) {
    this.notBeforeMillis = millis;
  }
}
