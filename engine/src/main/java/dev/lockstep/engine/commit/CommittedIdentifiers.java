package dev.lockstep.engine.commit;

import dev.lockstep.engine.snapshot.DamagedFileException;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers "is (commit user, identifier) in a snapshot already?" for one commit user, cheaply.
 *
 * <p>Identifiers of one user are committed in increasing order. The first question scans backwards
 * from the latest snapshot until it meets a snapshot of this user with a smaller identifier (or the
 * earliest snapshot); later questions only read the snapshots committed since the last answer. A
 * question about an identifier below what the backward scan covered scans backwards again.
 *
 * <p>Damaged snapshots (a file that is there but does not parse, {@link DamagedFileException}):
 *
 * <ol>
 *   <li>An unreadable snapshot proves nothing: it never counts as holding an identifier.
 *   <li>A user declared fresh ({@link #fresh}: it has committed nothing to the table before now)
 *       never reads the snapshots that existed at the declaration; damage there cannot matter to it
 *       and is not even read.
 *   <li>Otherwise an unreadable snapshot the scan has to pass might hold the identifier asked
 *       about. The answer is then known only when a readable snapshot above it holds the identifier
 *       (committed); else the question fails with a {@link DamagedFileException} naming the file:
 *       answering "no" could commit a batch twice, answering "yes" could lose it.
 * </ol>
 */
final class CommittedIdentifiers {

  private static final Logger LOG = LoggerFactory.getLogger(CommittedIdentifiers.class);

  private final SnapshotManager snapshots;
  private final String commitUser;
  private final Set<Long> known = new HashSet<>();
  private long scannedUpTo;
  private long coveredAbove = Long.MAX_VALUE;

  /** Snapshots up to this id existed before the user was declared fresh; 0: not declared. */
  private long freshAbove;

  CommittedIdentifiers(SnapshotManager snapshots, String commitUser) {
    this.snapshots = snapshots;
    this.commitUser = commitUser;
  }

  /**
   * Declares that this user has committed nothing in the snapshots that exist now: later questions
   * read only the snapshots committed from now on.
   */
  void fresh() throws IOException {
    long latest = snapshots.latestId().orElse(0);
    freshAbove = latest;
    scannedUpTo = Math.max(scannedUpTo, latest);
    if (coveredAbove == Long.MAX_VALUE) {
      coveredAbove = Long.MIN_VALUE; // nothing older can hold any identifier of this user
    }
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
    long earliest = Math.max(snapshots.earliestId().orElse(1), freshAbove + 1);
    long covered = Long.MIN_VALUE;
    Snapshot above = null;
    DamagedFileException unreadable = null;
    for (long id = latest; id >= earliest; id--) {
      Optional<Snapshot> s;
      try {
        s = snapshots.find(id);
      } catch (DamagedFileException damaged) {
        if (known.contains(identifier)) {
          // A readable snapshot above proves the commit; the coverage stays as it was.
          snapshots.skippedDamage().note(damaged);
          return;
        }
        if (unreadable == null) {
          unreadable = damaged;
        }
        above = null; // the link to the snapshot below cannot be checked
        continue;
      }
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
    if (unreadable != null && !known.contains(identifier)) {
      throw undecidable(unreadable, identifier);
    }
    coveredAbove = covered;
  }

  private DamagedFileException undecidable(DamagedFileException damaged, long identifier) {
    // The exception says it all (and the CLI prints it as its one line).
    LOG.debug(
        "Cannot tell whether commit user {} committed identifier {}: {}",
        commitUser,
        identifier,
        damaged.getMessage());
    return new DamagedFileException(
        damaged.kind(),
        damaged.file(),
        damaged.damage()
            + ", and it may hold commit user '"
            + commitUser
            + "' identifier "
            + identifier
            + ", so whether that commit happened cannot be told (committing it again could"
            + " duplicate it)",
        damaged);
  }

  private void note(Snapshot s) {
    if (s.commitUser().equals(commitUser)) {
      known.add(s.commitIdentifier());
    }
  }
}
