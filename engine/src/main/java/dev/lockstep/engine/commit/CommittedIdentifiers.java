package dev.lockstep.engine.commit;

import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Answers "is (commit user, identifier) in a snapshot already?" for one commit user, cheaply.
 *
 * <p>Identifiers of one user are committed in increasing order. The first question scans backwards
 * from the latest snapshot until it meets a snapshot of this user with a smaller identifier (or the
 * earliest snapshot); later questions only read the snapshots committed since the last answer. A
 * question about an identifier below what the backward scan covered scans backwards again.
 */
final class CommittedIdentifiers {

  private final SnapshotManager snapshots;
  private final String commitUser;
  private final Set<Long> known = new HashSet<>();
  private long scannedUpTo;
  private long coveredAbove = Long.MAX_VALUE;

  CommittedIdentifiers(SnapshotManager snapshots, String commitUser) {
    this.snapshots = snapshots;
    this.commitUser = commitUser;
  }

  boolean contains(long identifier) throws IOException {
    OptionalLong latestId = snapshots.latestId();
    if (latestId.isEmpty()) {
      return false;
    }
    long latest = latestId.getAsLong();
    if (identifier <= coveredAbove) {
      scanBackwards(latest, identifier);
    } else {
      // Only snapshots of the history count: down from the latest while each was built on the
      // one below. A snapshot published under an expired id (see CommitLoop.verifyFresh) is not.
      List<Snapshot> read = new ArrayList<>();
      for (long id = scannedUpTo + 1; id <= latest; id++) {
        snapshots.find(id).ifPresent(read::add);
      }
      Snapshot above = null;
      for (int i = read.size() - 1; i >= 0; i--) {
        Snapshot s = read.get(i);
        if (above != null && !s.isParentOf(above)) {
          break;
        }
        note(s);
        above = s;
      }
    }
    scannedUpTo = Math.max(scannedUpTo, latest);
    return known.contains(identifier);
  }

  /** Records a commit this process just made. */
  void add(long identifier) {
    known.add(identifier);
  }

  /** Scans back from {@code latest}; the coverage is updated only when the scan completes. */
  private void scanBackwards(long latest, long identifier) throws IOException {
    long earliest = snapshots.earliestId().orElse(1);
    long covered = Long.MIN_VALUE;
    Snapshot above = null;
    for (long id = latest; id >= earliest; id--) {
      Optional<Snapshot> s = snapshots.find(id);
      if (s.isEmpty() || (above != null && !s.get().isParentOf(above))) {
        // Expired meanwhile: older snapshots are gone too. Or not the one the history was built
        // on (an expired id published again): the history ends here.
        covered = identifier - 1;
        break;
      }
      above = s.get();
      note(s.get());
      if (s.get().commitUser().equals(commitUser) && s.get().commitIdentifier() < identifier) {
        covered = s.get().commitIdentifier();
        break;
      }
    }
    coveredAbove = covered;
  }

  private void note(Snapshot s) {
    if (s.commitUser().equals(commitUser)) {
      known.add(s.commitIdentifier());
    }
  }
}
