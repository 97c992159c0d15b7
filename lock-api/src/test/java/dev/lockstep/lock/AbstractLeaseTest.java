package dev.lockstep.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lease state machine every backend shares, driven through a backend that only records what it
 * is asked. Deadlines are set hours away from now (held) or already past (expired), so no assertion
 * depends on how long a step takes; the heartbeat's executor never runs a beat by itself: the test
 * runs the scheduled beat by hand.
 */
class AbstractLeaseTest {

  private static final Duration HOUR = Duration.ofHours(1);

  private final ManualHeartbeats heartbeats = new ManualHeartbeats();

  @AfterEach
  void shutDown() {
    heartbeats.shutdownNow();
  }

  /** A backend that records its calls; hooks left unset keep the base class's defaults. */
  static final class RecordingLease extends AbstractLease {
    final List<State> released = new ArrayList<>();
    final List<Duration> expiredAfter = new ArrayList<>();
    int heartbeats;
    int renewals;
    int afterLosses;
    String doubt;
    Runnable onHeartbeat = () -> {};
    Runnable onRenew = () -> {};
    Runnable onLocalDoubt = () -> {};

    RecordingLease(Duration validity, long deadlineNanos) {
      super("db.t", 7, validity, deadlineNanos);
    }

    /** Held: the acquisition confirmed an hour from now. */
    static RecordingLease held() {
      return new RecordingLease(HOUR, System.nanoTime() + HOUR.toNanos());
    }

    @Override
    protected void heartbeat() {
      heartbeats++;
      onHeartbeat.run();
    }

    @Override
    protected void release(State before) {
      released.add(before);
    }

    @Override
    protected String describe() {
      return "The test lock 'db.t'";
    }

    @Override
    protected String expiredReason(Duration sinceContact) {
      expiredAfter.add(sinceContact);
      return "no confirmation for too long";
    }

    @Override
    protected String localDoubt() {
      onLocalDoubt.run();
      return doubt != null ? doubt : super.localDoubt();
    }

    @Override
    protected void renewBeforeUse() {
      renewals++;
      onRenew.run();
      super.renewBeforeUse();
    }

    @Override
    protected void afterLoss() {
      afterLosses++;
      super.afterLoss();
    }

    State current() {
      return state();
    }

    void confirm(long sentNanos) {
      confirmed(sentNanos);
    }

    void doubt(String reason, Throwable why) {
      markInDoubt(reason, why);
    }

    void lose(String reason, Throwable why) {
      markLost(reason, why);
    }

    void beatEvery(ManualHeartbeats executor, Duration period) {
      startHeartbeat(executor, period);
    }
  }

  /**
   * Schedules nothing that runs by itself (a day's delay): records the beat and its period, and the
   * test runs the beat with {@link #beat()}.
   */
  static final class ManualHeartbeats extends ScheduledThreadPoolExecutor {
    Runnable beat;
    long periodNanos;
    ScheduledFuture<?> future;

    ManualHeartbeats() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
        Runnable command, long initialDelay, long delay, TimeUnit unit) {
      beat = command;
      periodNanos = unit.toNanos(delay);
      future = super.scheduleWithFixedDelay(command, 1, 1, TimeUnit.DAYS);
      return future;
    }

    void beat() {
      beat.run();
    }
  }

  private static String message(RecordingLease lease) {
    try {
      lease.ensureHeld();
    } catch (LockLostException e) {
      return e.getMessage();
    }
    throw new AssertionError("ensureHeld() did not throw for " + lease);
  }

  @Test
  void aHeldLeaseNamesItsKeyAndTokenAndTellsItsTimeLeft() throws LockLostException {
    RecordingLease lease = RecordingLease.held();

    assertThat(lease.key()).isEqualTo("db.t");
    assertThat(lease.fencingToken()).isEqualTo(7);
    assertThat(lease.isHeld()).isTrue();
    assertThat(lease.timeLeft()).isGreaterThan(HOUR.dividedBy(2)).isLessThanOrEqualTo(HOUR);
    lease.ensureHeld();
    assertThat(lease.current()).isEqualTo(AbstractLease.State.HELD);
    assertThat(lease).hasToString("RecordingLease{The test lock 'db.t', held}");
    assertThat(lease.afterLosses).isZero();
  }

  @Test
  void aPassedDeadlinePutsTheLeaseInDoubtForGood() {
    RecordingLease lease = new RecordingLease(HOUR, System.nanoTime() - 1);

    assertThat(lease.isHeld()).isFalse();
    assertThat(lease.timeLeft()).isEqualTo(Duration.ZERO);
    assertThat(lease.current()).isEqualTo(AbstractLease.State.IN_DOUBT);
    assertThat(message(lease))
        .isEqualTo(
            "The test lock 'db.t' is in doubt: no confirmation for too long. Do not publish"
                + " anything under it.");
    // A late confirmation does not revive it.
    lease.confirm(System.nanoTime());
    assertThat(lease.isHeld()).isFalse();
    assertThat(lease.afterLosses).isEqualTo(1);
    assertThat(lease.expiredAfter).hasSize(1);
  }

  @Test
  void anExpiredLeaseIsReportedWithTheTimeSinceItsLastConfirmedSend() {
    // The acquisition's send was a validity before the deadline: at least that long ago now.
    for (Duration validity : new Duration[] {HOUR, Duration.ofDays(1000)}) {
      RecordingLease lease = new RecordingLease(validity, System.nanoTime() - 1);

      assertThat(lease.isHeld()).isFalse();

      assertThat(lease.expiredAfter).hasSize(1);
      assertThat(lease.expiredAfter.get(0))
          .as("validity %s", validity)
          .isGreaterThan(validity)
          .isLessThan(validity.plus(HOUR));
    }
  }

  @Test
  void aConfirmationWhileHeldMovesTheDeadlineToItsSendPlusTheValidityAndNeverBack() {
    Duration validity = Duration.ofHours(10);
    RecordingLease lease = new RecordingLease(validity, System.nanoTime() + HOUR.toNanos());

    lease.confirm(System.nanoTime());
    assertThat(lease.timeLeft()).isGreaterThan(Duration.ofHours(9)).isLessThanOrEqualTo(validity);

    // An older send (an answer that arrives late) does not move it back.
    lease.confirm(System.nanoTime() - Duration.ofHours(5).toNanos());
    assertThat(lease.timeLeft()).isGreaterThan(Duration.ofHours(9));
  }

  @Test
  void aConfirmationOnceTheDeadlinePassedDoesNotRevive() {
    // Still HELD (nobody looked since the deadline passed), but the deadline is behind us.
    RecordingLease lease = new RecordingLease(HOUR, System.nanoTime() - 1);
    assertThat(lease.current()).isEqualTo(AbstractLease.State.HELD);

    lease.confirm(System.nanoTime());

    assertThat(lease.isHeld()).isFalse();
    assertThat(lease.current()).isEqualTo(AbstractLease.State.IN_DOUBT);
  }

  @Test
  void aLocalSignOfTroublePutsTheLeaseInDoubtEvenOnceTheSignIsGone() {
    RecordingLease lease = RecordingLease.held();
    lease.doubt = "the client is disconnected";

    assertThat(lease.isHeld()).isFalse();
    lease.doubt = null;

    assertThat(lease.isHeld()).isFalse();
    assertThat(lease.timeLeft()).isEqualTo(Duration.ZERO);
    assertThat(message(lease))
        .isEqualTo(
            "The test lock 'db.t' is in doubt: the client is disconnected. Do not publish anything"
                + " under it.");
    assertThat(lease.afterLosses).isEqualTo(1);
    assertThat(lease.expiredAfter).isEmpty();
  }

  @Test
  void aLeaseLostWhileItsStateIsBeingCheckedIsNotHeld() {
    // Another thread marks it lost between refresh()'s first look at the state and its answer.
    RecordingLease lease = RecordingLease.held();
    lease.onLocalDoubt = () -> lease.lose("its row was taken over", null);

    assertThat(lease.isHeld()).isFalse();
    assertThat(lease.current()).isEqualTo(AbstractLease.State.LOST);
  }

  @Test
  void lostKeepsTheFirstReasonAndCauseAndAppendsTheEscalation() {
    RecordingLease lease = RecordingLease.held();
    IOException suspended = new IOException("suspended");
    IOException expired = new IOException("expired");

    lease.doubt("the connection was suspended", suspended);
    lease.doubt("suspended again", null); // no effect once in doubt
    lease.lose("the session expired", expired);
    lease.lose("the node was deleted", null); // no effect once lost

    assertThat(lease.current()).isEqualTo(AbstractLease.State.LOST);
    assertThatThrownBy(lease::ensureHeld)
        .isInstanceOf(LockLostException.class)
        .hasMessage(
            "The test lock 'db.t' is lost: the connection was suspended; then the session expired."
                + " Do not publish anything under it.")
        .hasCause(suspended);
    assertThat(lease.afterLosses).isEqualTo(1);
  }

  @Test
  void aLeaseLostDirectlyCarriesItsCause() {
    RecordingLease lease = RecordingLease.held();
    IOException taken = new IOException("taken over");

    lease.lose("its row belongs to another holder", taken);

    assertThatThrownBy(lease::ensureHeld)
        .isInstanceOf(LockLostException.class)
        .hasMessage(
            "The test lock 'db.t' is lost: its row belongs to another holder. Do not publish"
                + " anything under it.")
        .hasCause(taken);
    assertThat(lease.afterLosses).isEqualTo(1);
    assertThat(lease.timeLeft()).isEqualTo(Duration.ZERO);
  }

  @Test
  void ensureHeldRenewsFirstWhereTheBackendDoesAndThrowsWhenTheRenewalLost()
      throws LockLostException {
    RecordingLease lease = RecordingLease.held();

    lease.ensureHeld();
    assertThat(lease.renewals).isEqualTo(1);

    lease.onRenew = () -> lease.lose("the renewal found another owner", null);
    assertThatThrownBy(lease::ensureHeld)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("is lost: the renewal found another owner.");
    assertThat(lease.renewals).isEqualTo(2);

    // Not held any more: no renewal is tried.
    assertThatThrownBy(lease::ensureHeld).isInstanceOf(LockLostException.class);
    assertThat(lease.renewals).isEqualTo(2);
  }

  @Test
  void closeReleasesOnceWithTheStateTheLeaseHad() throws IOException {
    RecordingLease lease = RecordingLease.held();

    lease.close();
    lease.close();

    assertThat(lease.released).containsExactly(AbstractLease.State.HELD);
    assertThat(lease.current()).isEqualTo(AbstractLease.State.RELEASED);
    assertThat(lease.isHeld()).isFalse();
    assertThat(message(lease))
        .isEqualTo(
            "The test lock 'db.t' is released: it was released by close(). Do not publish anything"
                + " under it.");
    // Nothing moves it back, or records a reason after the release.
    lease.lose("too late", null);
    assertThat(lease.current()).isEqualTo(AbstractLease.State.RELEASED);
    assertThat(message(lease)).doesNotContain("too late");
  }

  @Test
  void closeAfterALossReleasesKnowingItAndKeepsTheLossInTheMessage() throws IOException {
    RecordingLease lease = RecordingLease.held();
    lease.lose("the session expired", null);

    lease.close();

    assertThat(lease.released).containsExactly(AbstractLease.State.LOST);
    assertThat(message(lease))
        .isEqualTo(
            "The test lock 'db.t' is released: the session expired. Do not publish anything under"
                + " it.");
  }

  @Test
  void theHeartbeatBeatsWhileHeldAndStopsOnceNot() {
    RecordingLease lease = RecordingLease.held();
    lease.beatEvery(heartbeats, Duration.ofSeconds(10));

    assertThat(heartbeats.periodNanos).isEqualTo(Duration.ofSeconds(10).toNanos());
    assertThat(heartbeats.future.isCancelled()).isFalse();
    heartbeats.beat();
    heartbeats.beat();
    assertThat(lease.heartbeats).isEqualTo(2);

    lease.lose("the node was deleted", null);

    assertThat(heartbeats.future.isCancelled()).isTrue();
    heartbeats.beat(); // a beat already under way when it was cancelled
    assertThat(lease.heartbeats).isEqualTo(2);
  }

  @Test
  void aBeatThatFindsTheDeadlinePassedSendsNothing() {
    RecordingLease lease = new RecordingLease(HOUR, System.nanoTime() - 1);
    lease.beatEvery(heartbeats, Duration.ofSeconds(10));

    heartbeats.beat();

    assertThat(lease.heartbeats).isZero();
    assertThat(lease.current()).isEqualTo(AbstractLease.State.IN_DOUBT);
    assertThat(heartbeats.future.isCancelled()).isTrue();
  }

  @Test
  void aHeartbeatThatThrowsDoesNotStopTheNextBeats() {
    RecordingLease lease = RecordingLease.held();
    lease.onHeartbeat =
        () -> {
          throw new IllegalStateException("backend bug");
        };
    lease.beatEvery(heartbeats, Duration.ofSeconds(10));

    assertThatCode(heartbeats::beat).doesNotThrowAnyException();
    assertThatCode(heartbeats::beat).doesNotThrowAnyException();

    assertThat(lease.heartbeats).isEqualTo(2);
    assertThat(lease.isHeld()).isTrue();
    assertThat(heartbeats.future.isCancelled()).isFalse();
  }

  @Test
  void closeStopsTheHeartbeat() throws IOException {
    RecordingLease lease = RecordingLease.held();
    lease.beatEvery(heartbeats, Duration.ofSeconds(10));

    lease.close();

    assertThat(heartbeats.future.isCancelled()).isTrue();
  }

  @Test
  void aHeartbeatStartedOnALeaseNoLongerHeldStopsAtOnce() {
    RecordingLease lease = RecordingLease.held();
    lease.lose("lost before the heartbeat started", null);

    lease.beatEvery(heartbeats, Duration.ofSeconds(10));

    assertThat(heartbeats.future.isCancelled()).isTrue();
  }

  @Test
  void theHeartbeatPeriodIsAtLeastTwentyMilliseconds() {
    RecordingLease lease = RecordingLease.held();

    lease.beatEvery(heartbeats, Duration.ofNanos(1));

    assertThat(heartbeats.periodNanos).isEqualTo(Duration.ofMillis(20).toNanos());
  }

  @Test
  void closingALeaseWithoutAHeartbeatWorks() throws IOException {
    RecordingLease lease = RecordingLease.held();

    assertThatCode(lease::close).doesNotThrowAnyException();
    assertThat(lease.released).containsExactly(AbstractLease.State.HELD);
  }
}
